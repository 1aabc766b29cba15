"""Tables that fit the terminal: a table whose words do not fit side by side at the console's width
is shown as records (each row: `column: value` lines, the first one bold, the others indented),
never with words cut or ellipsised. Cells are already Text (render/safe.py)."""
from __future__ import annotations

from rich.measure import Measurement
from rich.text import Text


def _plain(cell) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def print_fitted(console, table) -> None:
    """Print `table`, or as records when its widest row cannot fit the console (Rich would cut words)."""
    need = Measurement.get(console, console.options.update(max_width=10 ** 5), table).maximum
    if need <= console.width:
        console.print(table)
        return
    if table.title is not None:
        console.print(table.title if isinstance(table.title, Text) else Text(str(table.title)))
    cols = table.columns
    heads = [_plain(c.header).replace("\n", " ") for c in cols]
    for r in range(table.row_count):
        cells = [c._cells[r] if r < len(c._cells) else "" for c in cols]
        line = Text(f"{heads[0]}: ", style="dim")
        line.append_text(cells[0] if isinstance(cells[0], Text) else Text(str(cells[0])))
        line.stylize("bold", len(heads[0]) + 2)
        console.print(line)
        for h, cell in zip(heads[1:], cells[1:]):
            line = Text(f"  {h}: ", style="dim")
            line.append_text(cell if isinstance(cell, Text) else Text(str(cell)))
            console.print(line)
