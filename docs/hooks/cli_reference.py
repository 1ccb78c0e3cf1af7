"""The CLI reference, generated from ``trex.cli.build_parser()`` while the site builds.

An mkdocs hook: :func:`on_files` adds ``cli/index.md`` (every subtool) and ``cli/<tool>.md`` (one
per subtool: usage, description, every option with its help, epilog) as generated pages, so the
reference always says what ``trex --help`` and ``trex <tool> --help`` say. :func:`pages` returns
the same Markdown for tests and for ``python docs/hooks/cli_reference.py OUTDIR``.
"""

from __future__ import annotations

import argparse
import html
import sys
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[2]


def _parser() -> argparse.ArgumentParser:
    if str(_ROOT / "src") not in sys.path:
        sys.path.insert(0, str(_ROOT / "src"))
    from trex.cli import build_parser

    return build_parser()


def _text(value: str) -> str:
    """Help text as Markdown text: no markup, tables and emphasis characters escaped."""
    out = html.escape(" ".join(value.split()), quote=False)
    for char, entity in (("|", "&#124;"), ("*", "&#42;"), ("_", "&#95;"), ("`", "&#96;"),
                         ("[", "&#91;"), ("]", "&#93;")):
        out = out.replace(char, entity)
    return out


def _block(value: str) -> str:
    """Preformatted text (usage, epilogs keep their line breaks)."""
    return "```text\n" + value.rstrip() + "\n```\n"


def subtools(parser: argparse.ArgumentParser | None = None) -> dict[str, argparse.ArgumentParser]:
    """Subtool name -> its parser, in ``trex --help`` order."""
    parser = parser or _parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices.items())
    return {}


def _summaries(parser: argparse.ArgumentParser) -> dict[str, str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {choice.dest: choice.help or "" for choice in action._choices_actions}
    return {}


def option_names(action: argparse.Action) -> list[str]:
    """How an option is written: its flags, or the metavar of a positional."""
    if action.option_strings:
        return list(action.option_strings)
    return [str(action.metavar or action.dest)]


def _value(action: argparse.Action) -> str:
    if not action.option_strings or action.nargs == 0:  # a positional is its own value
        return ""
    if action.choices:
        return "{" + ",".join(map(str, action.choices)) + "}"
    return str(action.metavar or action.dest.upper())


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if not action.help:
        return ""
    return parser._get_formatter()._expand_help(action)


def _options_table(parser: argparse.ArgumentParser, actions: list[argparse.Action]) -> str:
    rows = ["| option | value | what it does |", "|---|---|---|"]
    for action in actions:
        if action.help == argparse.SUPPRESS:
            continue
        names = ", ".join(f"`{name}`" for name in option_names(action))
        value = _value(action)
        rows.append(f"| {names} | {f'`{value}`' if value else ''} | {_text(_help(parser, action))} |")
    return "\n".join(rows) + "\n"


def tool_page(name: str, parser: argparse.ArgumentParser, summary: str = "") -> str:
    """The Markdown page of one subtool."""
    parts: list[str] = [f"# trex {name}\n", f"{_text(summary)}\n" if summary else "",
                        "## Usage\n", _block(parser.format_usage().removeprefix("usage: "))]
    if parser.description:
        parts += [f"{_text(parser.description)}\n"]
    for group in parser._action_groups:
        actions = [a for a in group._group_actions if a.help != argparse.SUPPRESS]
        if not actions:
            continue
        title = group.title or "options"
        parts += [f"## {title[0].upper()}{title[1:]}\n"]
        if group.description:
            parts += [f"{_text(group.description)}\n"]
        parts += [_options_table(parser, actions)]
    if parser.epilog:
        parts += ["## Notes\n", _block(parser.epilog)]
    parts += ["\n*Generated from `trex.cli.build_parser()` when the site was built.*\n"]
    return "\n".join(p for p in parts if p)


def index_page(parser: argparse.ArgumentParser) -> str:
    """The CLI reference's first page: the command's usage and one line per subtool."""
    summaries = _summaries(parser)
    rows = ["| command | what it does |", "|---|---|"]
    rows += [f"| [`trex {name}`]({name}.md) | {_text(summaries.get(name, ''))} |"
             for name in subtools(parser)]
    own = [a for a in parser._actions if a.option_strings]
    return "\n".join([
        "# Command line\n",
        f"{_text(parser.description or '')}\n",
        "## Usage\n", _block(parser.format_usage().removeprefix("usage: ")),
        "## Commands\n", "\n".join(rows) + "\n",
        "## Options\n", _options_table(parser, own),
        "Bad input (a missing file, the wrong kind of file, corrupt JSON) prints one line naming "
        "the file and the problem and exits with status 2.\n",
        "\n*Generated from `trex.cli.build_parser()` when the site was built.*\n",
    ])


def pages(parser: argparse.ArgumentParser | None = None) -> dict[str, str]:
    """Every page of the CLI reference: path under docs/ -> Markdown."""
    parser = parser or _parser()
    summaries = _summaries(parser)
    out = {"cli/index.md": index_page(parser)}
    for name, sub in subtools(parser).items():
        out[f"cli/{name}.md"] = tool_page(name, sub, summaries.get(name, ""))
    return out


def on_files(files: Any, config: Any) -> Any:
    """mkdocs hook: add the generated CLI pages to the site's files."""
    from mkdocs.structure.files import File

    for path, content in pages().items():
        files.append(File.generated(config, path, content=content))
    return files


if __name__ == "__main__":  # write the pages into a folder, e.g. to read them without mkdocs
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "cli-reference")
    for path, content in pages().items():
        out = target / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(content, encoding="utf-8")
        print(out)
