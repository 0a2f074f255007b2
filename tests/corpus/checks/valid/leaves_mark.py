"""Would leave marks if it were run or imported: a MARK file, and a __pycache__ folder."""

import pathlib

pathlib.Path(__file__).with_name("MARK_PY").write_text("this file was executed\n")
raise SystemExit("executed")
