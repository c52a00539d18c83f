"""export_html in a real headless browser: Debian's chromium and chromium-driver, via selenium.

Skipped (with the reason) when selenium, chromium or chromedriver is missing; one
browser serves the whole module. The driver is the installed chromedriver, given
explicitly, so selenium never downloads anything; the browser runs without network
features and with a throw-away profile.
"""

import shutil
import tempfile
from itertools import pairwise
from pathlib import Path

import pandas as pd
import pytest
from _export_models import EVIL_CATEGORY, EVIL_NAME, evil_model

from treelearn import ID3Classifier
from treelearn.datasets import load_dataset
from treelearn.export import export_html
from treelearn.tree import TreeView

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1400,900",
)


def _find(names, fallback):
    for name in names:
        if found := shutil.which(name):
            return found
    return fallback if Path(fallback).exists() else None


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    from selenium.webdriver.chrome.service import Service

    chromium = _find(["chromium", "chromium-browser"], "/usr/bin/chromium")
    chromedriver = _find(["chromedriver"], "/usr/bin/chromedriver")
    if chromium is None or chromedriver is None:
        pytest.skip(
            "chromium and chromium-driver are not installed "
            "(apt-get install chromium chromium-driver)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="treelearn-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def open_page(browser, tmp_path, page):
    """Load ``page`` from a file; return the browser's console messages while loading it."""
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get_log("browser")  # drop what earlier pages logged
    path = tmp_path / "tree.html"
    path.write_text(page, encoding="utf-8")
    browser.get(path.as_uri())
    WebDriverWait(browser, 10).until(
        lambda b: b.execute_script("return document.body.dataset.ready") == "true"
    )
    return browser.get_log("browser")


def css(browser, selector):
    from selenium.webdriver.common.by import By

    return browser.find_elements(By.CSS_SELECTOR, selector)


def shown_nodes(browser):
    return sorted(
        int(e.get_attribute("data-node")) for e in css(browser, ".tl-node") if e.is_displayed()
    )


def box(browser, node):
    return css(browser, f'.tl-node[data-node="{node}"]')[0]


@pytest.fixture(scope="module")
def watermelon():
    X, y = load_dataset("watermelon2")
    return ID3Classifier().fit(X, y)


def test_loads_without_errors_and_shows_the_nodes(browser, tmp_path, watermelon):
    log = open_page(browser, tmp_path, export_html(watermelon, collapse_depth=2))
    assert [entry for entry in log if entry["level"] in ("SEVERE", "WARNING")] == []
    view = TreeView(watermelon)
    assert len(css(browser, ".tl-node")) == view.node_count == 14
    assert len(css(browser, ".tl-edge")) == view.node_count - 1
    assert shown_nodes(browser) == sorted(n.index for n in view if n.depth <= 2)
    assert browser.title == "ID3Classifier"
    assert box(browser, 0).find_element("css selector", ".tl-head").text == "纹理"
    edges = [e.text for e in css(browser, ".tl-edge-text") if e.is_displayed()]
    assert "= 清晰\n+ missing" in edges
    # Nodes of one row sit side by side, below their parent.
    root, kids = box(browser, 0).rect, [box(browser, c).rect for c in view.node(0).children]
    assert all(k["y"] > root["y"] + root["height"] for k in kids)
    assert all(a["x"] + a["width"] <= b["x"] for a, b in pairwise(kids))


def test_a_toggle_expands_and_collapses_a_subtree(browser, tmp_path, watermelon):
    view = TreeView(watermelon)
    open_page(browser, tmp_path, export_html(watermelon, collapse_depth=2))
    collapsed = [n for n in view if n.depth == 2 and not n.is_leaf]
    assert collapsed
    node = collapsed[0]
    below = [n.index for n in view if node.index in _ancestors(view, n.index)]
    toggle = box(browser, node.index).find_element("css selector", ".tl-toggle")
    assert toggle.text == f"+{len(below)}" and toggle.get_attribute("aria-expanded") == "false"
    assert not set(below) & set(shown_nodes(browser))
    toggle.click()
    assert set(node.children) <= set(shown_nodes(browser))
    assert toggle.text == "\u2212" and toggle.get_attribute("aria-expanded") == "true"
    # The toggle does not select the node.
    assert css(browser, ".tl-selected") == []
    toggle.click()
    assert not set(node.children) & set(shown_nodes(browser))
    css(browser, "#tl-expand")[0].click()
    assert shown_nodes(browser) == list(range(view.node_count))
    css(browser, "#tl-collapse")[0].click()
    assert shown_nodes(browser) == [0, *view.node(0).children]


def _ancestors(view, index):
    found = []
    while (index := view.node(index).parent) >= 0:
        found.append(index)
    return found


def test_a_click_shows_the_details(browser, tmp_path, watermelon):
    table = pd.DataFrame(
        {"attribute": ["纹理", "<b>根蒂</b>"], "gain": [0.381, 0.143], "chosen": [True, False]}
    )
    open_page(browser, tmp_path, export_html(watermelon, explain_tables={0: table}))
    box(browser, 0).click()
    assert "tl-selected" in box(browser, 0).get_attribute("class")
    details = css(browser, "#tl-details")[0].text
    assert details.startswith("Node #0\nmultiway split on 纹理")
    for expected in ("samples 17", "impurity 0.998", "impurity decrease 0.381", "否 9 0.529"):
        assert expected in details
    rows = [
        [cell.text for cell in row.find_elements("css selector", "th, td")]
        for row in css(browser, "table.tl-explain tr")
    ]
    assert rows == [
        ["attribute", "gain", "chosen"],
        ["纹理", "0.381", "yes"],
        ["<b>根蒂</b>", "0.143", "no"],
    ]
    assert css(browser, "#tl-details b") == []
    bars = css(browser, "#tl-details .tl-dist .tl-seg")
    assert len(bars) == 2
    # A branch's button selects that child; a leaf has no split.
    leaf = next(n for n in TreeView(watermelon) if n.is_leaf and n.depth == 1)
    [button] = [b for b in css(browser, ".tl-branches .tl-link") if b.text == f"#{leaf.index}"]
    button.click()
    details = css(browser, "#tl-details")[0].text
    assert details.startswith(f"Node #{leaf.index}\nleaf") and "Split" not in details
    assert css(browser, ".tl-selected") == [box(browser, leaf.index)]


def test_hostile_labels_run_no_script(browser, tmp_path):
    model = evil_model()
    log = open_page(
        browser, tmp_path, export_html(model, title="<script>window.__pwned = 3</script>")
    )
    assert browser.execute_script("return window.__pwned === undefined")
    assert [entry for entry in log if entry["level"] == "SEVERE"] == []
    assert len(css(browser, "script")) == 2 and css(browser, "img") == []
    assert box(browser, 0).find_element("css selector", ".tl-head").text == EVIL_NAME
    assert any(EVIL_CATEGORY in e.text for e in css(browser, ".tl-edge-text"))
    box(browser, 0).click()
    assert EVIL_NAME in css(browser, "#tl-details")[0].text
    assert browser.execute_script("return window.__pwned === undefined")
    assert browser.title == "<script>window.__pwned = 3</script>"
