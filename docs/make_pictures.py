"""Render the pictures in docs/: plot_tree of a 30-leaf CART tree, a C4.5 tree, and the
HTML page of that C4.5 tree in headless Chromium (a screenshot).

Run from the repository root after ``pip install ".[test]"`` (matplotlib, selenium), with
Debian's ``chromium chromium-driver`` and, for the Chinese labels, ``fonts-noto-cjk``
installed::

    python docs/make_pictures.py

Look at the pictures after rendering them: every label readable, no box or label overlapping
another.
"""

import shutil
import tempfile
from pathlib import Path

from sklearn.datasets import load_diabetes

from treelearn import C45Classifier, CARTRegressor
from treelearn.datasets import load_dataset
from treelearn.export import export_html, save_image

DOCS = Path(__file__).parent
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1500,760",
)  # fmt: skip


def cart_diabetes():
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    model = CARTRegressor(max_leaf_nodes=30).fit(X, y)
    save_image(model, DOCS / "plot_tree_cart_diabetes.png", dpi=80)
    return model


def c45_watermelon():
    X, y = load_dataset("watermelon3")
    model = C45Classifier().fit(X, y)
    save_image(model, DOCS / "plot_tree_c45_watermelon3.png", dpi=110)
    return model


def html_screenshot(model, name):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    folder = Path(tempfile.mkdtemp(prefix="treelearn-docs-"))
    try:
        page = folder / "tree.html"
        export_html(model, page)
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={folder / 'profile'}"):
            options.add_argument(flag)
        service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
        driver = webdriver.Chrome(service=service, options=options)
        try:
            driver.get(page.as_uri())
            WebDriverWait(driver, 10).until(
                lambda d: d.execute_script("return document.body.dataset.ready") == "true"
            )
            driver.find_element(By.CSS_SELECTOR, '.tl-node[data-node="0"]').click()
            driver.save_screenshot(str(DOCS / name))
        finally:
            driver.quit()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    cart_diabetes()
    html_screenshot(c45_watermelon(), "html_c45_watermelon3.png")
    for picture in sorted(DOCS.glob("*.png")):
        print(picture, picture.stat().st_size, "bytes")
