"""Shared helpers for the template tests."""

from __future__ import annotations

from typing import Any

import pytest

from runner.golang.gofunc import GoFunc
from runner.template import ExecError, ParseError, Template


def render(src: str, data: Any = None, *, missingkey: str = "zero", funcs: dict[str, GoFunc] | None = None) -> str:
    tmpl = Template("gotpl", funcs=funcs, missingkey=missingkey)
    tmpl.parse("t", src)
    return tmpl.execute("t", data)


def exec_error(src: str, data: Any = None, **kw: Any) -> str:
    with pytest.raises(ExecError) as info:
        render(src, data, **kw)
    return str(info.value)


def parse_error(src: str, **kw: Any) -> str:
    with pytest.raises(ParseError) as info:
        render(src, None, **kw)
    return str(info.value)
