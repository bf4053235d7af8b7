"""Template functions: paths (Sprig's base/dir/clean/ext/isAbs are Go's path package;
osBase/osDir/osClean/osExt/osIsAbs are path/filepath, which on Linux behaves the same)."""

from __future__ import annotations

from runner.funcs.registry import gofunc
from runner.golang import filepath


def base(path: str) -> str:
    """Go's path.Base (filepath.Base on Linux: runner.golang.filepath)."""
    return filepath.base(path)


def clean(path: str) -> str:
    """Go's path.Clean: lexical shortest equivalent path."""
    if path == "":
        return "."
    rooted = path.startswith("/")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not rooted:
                parts.append("..")
            continue
        parts.append(part)
    joined = "/".join(parts)
    if rooted:
        return "/" + joined
    return joined or "."


def dirname(path: str) -> str:
    """Go's path.Dir: everything but the last element, cleaned."""
    return clean(path[: path.rfind("/") + 1])


def ext(path: str) -> str:
    """Go's path.Ext: the suffix from the final dot of the last element."""
    for i in range(len(path) - 1, -1, -1):
        if path[i] == "/":
            break
        if path[i] == ".":
            return path[i:]
    return ""


def is_abs(path: str) -> bool:
    return path.startswith("/")


for _prefix in ("", "os"):
    # filepath on Linux uses '/' as separator: the same functions serve both names.
    def _name(name: str, prefix: str = _prefix) -> str:
        return prefix + name[0].upper() + name[1:] if prefix else name

    gofunc(_name("base"), ("string",), returns="string")(base)
    gofunc(_name("dir"), ("string",), returns="string")(dirname)
    gofunc(_name("clean"), ("string",), returns="string")(clean)
    gofunc(_name("ext"), ("string",), returns="string")(ext)
    gofunc(_name("isAbs"), ("string",), returns="bool")(is_abs)
