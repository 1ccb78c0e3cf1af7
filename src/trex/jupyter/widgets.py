"""Showing things in Jupyter: the display primitive, TREx's dropdown widgets and figure menus.

With ipywidgets a menu is a dropdown above an output area; without it every choice is shown in
turn. Outside a notebook nothing is shown: the objects are returned for scripts to use.
IPython and ipywidgets are imported only when something is shown.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["Chart", "Displayable", "FigureGallery", "FigureMenu", "InteractiveDiagram",
           "InteractiveDiagram_2", "dropdown", "execution_count", "have_widgets", "heading", "html",
           "in_notebook", "render_into", "show", "show_figure"]


# ----------------------------------------------------------------------------- display primitive
def _ipython() -> Any:
    """The running IPython shell, or None (IPython is never imported just to ask)."""
    if "IPython" not in sys.modules:
        return None
    from IPython import get_ipython

    return get_ipython()


def in_notebook() -> bool:
    """True inside a Jupyter kernel (a notebook, JupyterLab, VS Code, nbclient)."""
    shell = _ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def execution_count() -> int | None:
    """The number of the cell being run (None outside IPython)."""
    shell = _ipython()
    return getattr(shell, "execution_count", None) if shell is not None else None


def show(*objs: Any) -> None:
    """Display objects in the notebook (``IPython.display.display``)."""
    from IPython.display import display

    display(*objs)


def have_widgets() -> bool:
    """True if ipywidgets can be imported."""
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


def show_figure(fig: Any) -> Any:
    """Show a figure once: returned as a cell's last value, it is not shown a second time."""
    show(fig)
    count = execution_count()
    real = getattr(type(fig), "_ipython_display_", None)
    if real is None:
        return fig

    def _ipython_display_() -> None:
        if execution_count() != count:  # a later cell shows it again
            real(fig)

    try:
        fig._ipython_display_ = _ipython_display_
    except (AttributeError, ValueError):  # an object that refuses new attributes
        pass
    return fig


def html(text: str) -> Any:
    """``IPython.display.HTML(text)``."""
    from IPython.display import HTML

    return HTML(text)


def heading(text: str) -> Any:
    """A small bold title above a figure or table."""
    import html as _html

    return html(f"<h4 style='margin:12px 0 4px'>{_html.escape(text)}</h4>")


class Displayable:
    """Shown by :meth:`show`; as a cell's last value, shown unless already shown in that cell."""

    _shown_at: int | None = None
    _shown = False

    def show(self) -> None:
        self._shown, self._shown_at = True, execution_count()
        self._render()

    def _render(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _ipython_display_(self) -> None:
        if not (self._shown and self._shown_at == execution_count()):
            self.show()


# ----------------------------------------------------------------------------- dropdowns
def render_into(out: Any, render: Callable[[], Any]) -> None:
    """Run ``render()`` and make what it prints and displays the content of the Output widget ``out``.

    Not ``with out:``, on purpose. Run headless (``jupyter nbconvert --execute``, papermill, nbclient),
    nbclient stands in for the Output widget and, for every output captured by ``with out:``, sends
    the widget's new state back to the kernel on the shell socket while it is awaiting the cell's
    execute_reply on that same socket. jupyter_client sends through a blocking shadow of its asyncio
    socket, so the send drains ZeroMQ's edge-triggered wake-up (ZMQ_FD) and pyzmq never re-checks
    ZMQ_EVENTS: when the reply had just arrived, its wake-up is lost and the cell sits until its
    timeout (forever with nbclient's and papermill's default of none), although the reply is there.
    Setting ``out.outputs`` from the kernel travels on IOPub: the client never writes to the shell.
    """
    from IPython.utils.capture import capture_output

    with capture_output(stdout=True, stderr=True, display=True) as captured:
        render()
    outputs: list[dict[str, Any]] = [
        {"output_type": "stream", "name": name, "text": text}
        for name, text in (("stdout", captured.stdout), ("stderr", captured.stderr)) if text]
    outputs += [{"output_type": "display_data", "data": o.data, "metadata": o.metadata or {}}
                for o in captured.outputs]
    out.outputs = tuple(outputs)


def dropdown(choices: list[str], description: str, render: Callable[[str], None]) -> Any:
    """A dropdown over ``choices`` above an output area where ``render(choice)`` draws; returns the VBox."""
    import ipywidgets as widgets

    menu = widgets.Dropdown(options=choices, value=choices[0], description=description)
    out = widgets.Output()

    def draw(choice: str) -> None:
        render_into(out, lambda: render(choice))

    menu.observe(lambda change: draw(change["new"]), names="value")
    box = widgets.VBox([menu, out])
    box.dropdown, box.output = menu, out  # for callers and tests
    draw(choices[0])
    return box


class Chart:
    """A menu entry: ``chart(title=None, do_show=True)`` builds its figure (TREx's callables)."""

    def __init__(self, builder: Callable[..., Any], title: str | None = None):
        self.builder = builder
        self.title = title

    def __call__(self, title: str | None = None, do_show: bool = True) -> Any:
        title = title or self.title
        fig = self.builder(title=title) if title else self.builder()
        if do_show and in_notebook():
            show_figure(fig)
        return fig

    def __repr__(self) -> str:
        return f"Chart({self.title!r})"


class FigureMenu(dict, Displayable):
    """Figures by title (values: :class:`Chart`); shown as a dropdown, or all in turn without ipywidgets."""

    def __init__(self, builders: Mapping[str, Callable[..., Any]], description: str = "Diagram:"):
        super().__init__({t: b if isinstance(b, Chart) else Chart(b, t) for t, b in builders.items()})
        self.description = description
        self.widget: Any = None

    @classmethod
    def from_figures(cls, figures: Mapping[str, Any], description: str = "Diagram:") -> FigureMenu:
        """A menu of figures already built."""
        return cls({t: (lambda title=None, _f=f: _f) for t, f in figures.items()}, description)

    def figure(self, title: str) -> Any:
        """The figure of one entry, built (not shown)."""
        return self[title](title=title, do_show=False)

    def figures(self) -> dict[str, Any]:
        """Every figure, built (not shown)."""
        return {t: self.figure(t) for t in self}

    def _draw(self, title: str) -> None:
        show(self.figure(title))

    def _render(self) -> None:
        if not self:
            return
        if have_widgets():
            self.widget = dropdown(list(self), self.description, self._draw)
            show(self.widget)
        else:
            for title in self:
                self._draw(title)

    def __repr__(self) -> str:
        return f"FigureMenu({list(self)})"


class FigureGallery(dict, Displayable):
    """Figures already built, by title; shown like a :class:`FigureMenu`."""

    def __init__(self, figures: Mapping[str, Any], description: str = "Diagram:"):
        super().__init__(figures)
        self.description = description
        self.widget: Any = None

    def _render(self) -> None:
        FigureMenu.from_figures(self, self.description).show()

    def __repr__(self) -> str:
        return f"FigureGallery({list(self)})"


class InteractiveDiagram(Displayable):
    """TREx's dropdown: ``diagram_renderer(choice, *choices[choice])`` draws the chosen entry."""

    def __init__(self, diagram_renderer: Callable[..., Any], choices: Mapping[str, Any],
                 description: str, display: bool = True):
        self.diagram_renderer = diagram_renderer
        self.choices = dict(choices)
        self.description = description
        self.widget: Any = None
        if display and in_notebook():
            self.show()

    def render(self, choice: str) -> Any:
        """Draw one choice (its result is shown if the renderer returns something)."""
        values = self.choices[choice]
        if not isinstance(values, (list, tuple)):
            values = (values,)
        result = self.diagram_renderer(choice, *values)
        if result is not None:
            show(result)
        return result

    def _render(self) -> None:
        if have_widgets():
            self.widget = dropdown(list(self.choices), self.description, self.render)
            show(self.widget)
        else:
            for choice in self.choices:
                show(heading(choice))
                self.render(choice)


class InteractiveDiagram_2(InteractiveDiagram):  # noqa: N801 - TREx's name
    """TREx's dropdown of renderers: ``choices[choice](title=choice)`` draws the chosen entry."""

    def __init__(self, choices: Mapping[str, Callable[..., Any]], description: str,
                 display: bool = True):
        super().__init__(self._call, choices, description, display)

    @staticmethod
    def _call(choice: str, renderer: Callable[..., Any]) -> Any:
        try:
            return renderer(title=choice, do_show=False)
        except TypeError:  # a renderer without do_show
            return renderer(title=choice)
