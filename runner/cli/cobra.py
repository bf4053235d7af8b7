"""spf13/cobra as Helm 4.1.4's command tree uses it: finding the command, checking its
arguments, help and usage text, and the messages Helm prints.

- The command is found among the arguments that are not flags or flag values
  (cobra's Find/stripFlags), so global flags go anywhere: before the command or
  after it (`deploy-runner install ... --debug`).
- An unknown word under the root fails as `unknown command "templte" for
  "deploy-runner"` with cobra's suggestions (`Did you mean this?`: Levenshtein
  distance up to 2, or a prefix) and `Run 'deploy-runner --help' for usage.`
- A command that only groups others (`repo`, `show`, `get`) prints its help.
- Argument counts are checked with Helm's pkg/cmd/require messages (`"deploy-runner
  status" requires 1 argument` and the usage line).
- `--help` prints cobra's help: Long (or Short) text, Usage, Aliases, Available
  Commands, Flags, Global Flags.

Commands under the root are loaded when found (`Command.load`), so a run builds
the flags of its own command only. The root's name is the program's (the name it was
invoked by: runner.cli.program_name), so every message, usage line and help text
names it as Helm's name `helm` (a link named `helm` prints them as Helm does).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from runner.cli.pflag import FlagError, FlagSet

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:

    from runner.cli.pflag import Namespace

    ArgsCheck = Callable[["Command", list[str]], None]

MIN_NAME_PADDING = 11


class Command:
    """One command: its names and texts, the flags it declares, how many arguments it
    takes, what runs it, and the commands under it."""

    def __init__(self, use: str, short: str, *, long: str = "", aliases: tuple[str, ...] = (),
                 args: ArgsCheck | None = None, run: Callable[[Namespace], int] | None = None,
                 flags: Callable[[FlagSet], None] | None = None,
                 children: list[Command] | None = None, module: str = "") -> None:
        self.use = use  # "install [NAME] [CHART]": the name, then the arguments it takes
        self.name = use.split(" ", 1)[0]
        self.short = short
        self.long = long
        self.aliases = aliases
        self.args = args
        self.run = run
        self.define_flags = flags
        self.children: list[Command] = []
        self.parent: Command | None = None
        self.module = module  # where the full command is built (`build(name)`), until loaded
        self.persistent = FlagSet()  # flags every command below this one also takes
        self._flags: FlagSet | None = None
        self._finding: FlagSet | None = None
        for child in children or ():
            self.add(child)

    def add(self, child: Command) -> Command:
        child.parent = self
        self.children.append(child)
        return child

    # ------------------------------------------------------------------ tree

    def load(self) -> Command:
        """The full command (flags, run, subcommands) for a stub that names its module."""
        if not self.module:
            return self
        full: Command = importlib.import_module(f"runner.cli.{self.module}").build(self.name)
        full.parent = self.parent
        if self.parent is not None:
            self.parent.children[self.parent.children.index(self)] = full
        return full

    def find_child(self, word: str) -> Command | None:
        """findNext: the subcommand named or aliased `word`."""
        for child in self.children:
            if word == child.name or word in child.aliases:
                return child.load()
        return None

    def root(self) -> Command:
        return self if self.parent is None else self.parent.root()

    def path(self) -> str:
        """CommandPath: `deploy-runner show values` (the root's name is the program's)."""
        return self.name if self.parent is None else f"{self.parent.path()} {self.name}"

    def use_line(self) -> str:
        """UseLine: the parent's path, this command's Use, and `[flags]`."""
        line = self.use if self.parent is None else f"{self.parent.path()} {self.use}"
        return line if "[flags]" in line else f"{line} [flags]"

    def runnable(self) -> bool:
        return self.run is not None

    # ----------------------------------------------------------------- flags

    def local_flags(self) -> FlagSet:
        """The flags this command declares, with cobra's `-h, --help`."""
        if self._flags is None:
            self._flags = FlagSet()
            if self.define_flags is not None:
                self.define_flags(self._flags)
            self._flags.bool("help", f"help for {self.name}", short="h")
        return self._flags

    def inherited_flags(self) -> FlagSet:
        """The persistent flags of every command above this one."""
        inherited = FlagSet()
        parent = self.parent
        while parent is not None:
            inherited = inherited.merged(parent.persistent)
            parent = parent.parent
        return inherited

    def all_flags(self) -> FlagSet:
        return self.local_flags().merged(self.persistent).merged(self.inherited_flags())

    def flags_for_finding(self) -> FlagSet:
        """What cobra's Find knows when it strips flags: no help flag yet."""
        if self._finding is None:
            own = FlagSet()
            if self.define_flags is not None:
                self.define_flags(own)
            self._finding = own.merged(self.persistent).merged(self.inherited_flags())
        return self._finding

    # ------------------------------------------------------------------ help

    def help_text(self) -> str:
        """cobra's help: Long (or Short), then the usage."""
        text = (self.long or self.short).rstrip()
        return (f"{text}\n\n" if text else "") + self.usage_text()

    def usage_text(self) -> str:
        """cobra's usage template."""
        parts = ["Usage:"]
        if self.runnable():
            parts.append(f"\n  {self.use_line()}")
        shown = self.children
        if shown:
            parts.append(f"\n  {self.path()} [command]")
        if self.aliases:
            parts.append("\n\nAliases:\n  " + ", ".join((self.name, *self.aliases)))
        if shown:
            width = max(MIN_NAME_PADDING, *(len(c.name) for c in shown))
            parts.append("\n\nAvailable Commands:")
            parts += [f"\n  {c.name.ljust(width)} {c.short}" for c in sorted(shown, key=lambda c: c.name)]
        local = self.local_flags().merged(self.persistent)
        parts.append("\n\nFlags:\n" + local.usages().rstrip())
        inherited = self.inherited_flags()
        if inherited.flags:
            parts.append("\n\nGlobal Flags:\n" + inherited.usages().rstrip())
        if shown:
            parts.append(f'\n\nUse "{self.path()} [command] --help" for more information about a command.')
        return "".join(parts) + "\n"


# ---------------------------------------------------------------- finding


class UnknownCommand(FlagError):
    """`unknown command "x" for "deploy-runner"`: cobra adds `Run 'deploy-runner --help' for usage.`"""


def find(root: Command, args: list[str]) -> tuple[Command, list[str]]:
    """cobra's Command.Find: the deepest command the arguments name, and the arguments
    left for it (flags and all)."""
    command, rest = root, args
    while True:
        words = strip_flags(rest, command.flags_for_finding())
        if not words:
            break
        child = command.find_child(words[0])
        if child is None:
            break
        rest = _without_first(rest, words[0], command.flags_for_finding())
        command = child
    if command.args is None and command.parent is None and command.children:
        words = strip_flags(rest, command.flags_for_finding())
        if words:  # legacyArgs: a root with subcommands takes no arguments of its own
            raise UnknownCommand(f'unknown command "{words[0]}" for "{command.path()}"'
                                 f"{_suggestions(command, words[0])}")
    return command, rest


def _flag_takes_value(arg: str, flags: FlagSet) -> bool:
    """A `--name` or `-x` (without `=`) whose value is the next argument."""
    if "=" in arg:
        return False
    if arg.startswith("--"):
        return flags.takes_value(arg[2:], short=False)
    return len(arg) == 2 and arg[0] == "-" and flags.takes_value(arg[1], short=True)


def strip_flags(args: list[str], flags: FlagSet) -> list[str]:
    """stripFlags: the arguments that are neither flags nor flag values."""
    words: list[str] = []
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--":
            break
        if _flag_takes_value(arg, flags):
            if len(rest) <= 1:
                break
            rest.pop(0)
        elif arg and not arg.startswith("-"):
            words.append(arg)
    return words


def _without_first(args: list[str], word: str, flags: FlagSet) -> list[str]:
    """argsMinusFirstX: `args` without the first plain `word` (not a flag's value)."""
    position = 0
    while position < len(args):
        arg = args[position]
        if arg == "--":
            break
        if _flag_takes_value(arg, flags):
            position += 2
            continue
        if not arg.startswith("-") and arg == word:
            return args[:position] + args[position + 1:]
        position += 1
    return args


def _suggestions(command: Command, typed: str) -> str:
    """findSuggestions: commands within Levenshtein distance 2, or that start with it, in the
    order they were added."""
    lower = typed.lower()
    names = [c.name for c in command.children
             if c.name != "help"
             and (levenshtein(lower, c.name.lower()) <= 2 or c.name.lower().startswith(lower))]
    if not names:
        return ""
    return "\n\nDid you mean this?\n" + "".join(f"\t{name}\n" for name in names)


def levenshtein(a: str, b: str) -> int:
    """cobra's ld: the edit distance of two strings."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


# ------------------------------------------------------- argument counts


class ArgsError(FlagError):
    """A wrong number of arguments, in Helm's pkg/cmd/require words."""


def _plural(n: int) -> str:
    return "argument" if n == 1 else "arguments"


def no_args(command: Command, args: list[str]) -> None:
    if args:
        raise ArgsError(f'"{command.path()}" accepts no arguments\n\nUsage:  {command.use_line()}')


def exact_args(n: int) -> ArgsCheck:
    def check(command: Command, args: list[str]) -> None:
        if len(args) != n:
            raise ArgsError(f'"{command.path()}" requires {n} {_plural(n)}\n\nUsage:  {command.use_line()}')
    return check


def minimum_args(n: int) -> ArgsCheck:
    def check(command: Command, args: list[str]) -> None:
        if len(args) < n:
            raise ArgsError(f'"{command.path()}" requires at least {n} {_plural(n)}\n\n'
                            f"Usage:  {command.use_line()}")
    return check


def maximum_args(n: int) -> ArgsCheck:
    def check(command: Command, args: list[str]) -> None:
        if len(args) > n:
            raise ArgsError(f'"{command.path()}" accepts at most {n} {_plural(n)}\n\n'
                            f"Usage:  {command.use_line()}")
    return check


def any_args(_command: Command, _args: list[str]) -> None:
    """cobra.ArbitraryArgs."""


def check_args(command: Command, args: list[str]) -> None:
    """ValidateArgs: the command's own check; without one, legacyArgs (anything)."""
    if command.args is not None:
        command.args(command, args)
