"""Helpers of the command-line tests: run the command in-process, check one-line errors."""

from dataclasses import dataclass

from treelearn.cli import main

WATERMELON_WITH_MISSING = """\
编号,色泽,根蒂,敲声,纹理,密度,好瓜
1,青绿,蜷缩,浊响,清晰,0.697,是
2,乌黑,蜷缩,沉闷,清晰,0.774,是
3,乌黑,?,浊响,清晰,,是
4,青绿,蜷缩,沉闷,清晰,0.608,是
5,,蜷缩,浊响,清晰,0.556,是
6,青绿,稍蜷,浊响,清晰,0.403,是
10,青绿,硬挺,清脆,清晰,?,否
11,浅白,硬挺,清脆,模糊,0.245,否
12,浅白,蜷缩,浊响,模糊,0.343,否
13,青绿,稍蜷,浊响,稍糊,0.639,否
14,浅白,稍蜷,沉闷,稍糊,0.657,否
"""

WEATHER_ARFF = """\
% Weka's weather data (numeric version), with a quoted attribute name
@relation weather

@attribute outlook {sunny, overcast, rainy}
@attribute temperature real
@attribute humidity numeric
@attribute windy {TRUE, FALSE}
@attribute 'play it' {yes, no}

@data
sunny,85,85,FALSE,no
sunny,80,90,TRUE,no
overcast,83,86,FALSE,yes
rainy,70,96,FALSE,yes
rainy,68,80,FALSE,yes
rainy,65,70,TRUE,no
overcast,64,65,TRUE,yes
% a comment between rows
sunny,72,95,FALSE,no
sunny,69,70,FALSE,yes
rainy,75,80,FALSE,yes
sunny,75,70,TRUE,yes
overcast,72,90,TRUE,yes
overcast,81,?,FALSE,yes
rainy,71,91,TRUE,no
"""


@dataclass
class Result:
    """What one run of the command did."""

    status: int
    out: str
    err: str


def run(argv, capsys):
    """Run ``treelearn ARGV`` in-process; return its :class:`Result`."""
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return Result(status, captured.out, captured.err)


def assert_one_line_error(result, *fragments, command=None):
    """Exit status 2, nothing on stdout, one line on stderr holding every fragment."""
    assert result.status == 2, result
    assert result.out == "", result.out
    assert result.err.count("\n") == 1, result.err
    assert result.err.startswith(f"treelearn {command}" if command else "treelearn"), result.err
    assert "Traceback" not in result.err
    for fragment in fragments:
        assert fragment in result.err, (fragment, result.err)
