"""Query attributes: a CSV or tab-separated file with a header, the query ID in the first column and one attribute
per further column (``query_id,site,scanner``), read to break scores down by one of them
(:func:`evalcore.stats.groups.grouped_scores`, ``--group-by FILE:COLUMN``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from evalcore.errors import MAX_NAME_CHARS, InputError, listed, one_line
from evalcore.readers.files import Source, read_text
from evalcore.readers.lines import check_delimiter, check_id, csv_rows, first_line_of_text
from evalcore.stats.groups import Grouping

SHAPE = "a header naming the query ID column, then the attribute columns (query_id,site)"
#: :data:`SHAPE` for a reader who is not a researcher.
PLAIN_SHAPE = "a first line naming the column of the cases' image IDs, then the columns to group them by (image,site)"


@dataclass(frozen=True)
class QueryAttributes:
    """The attributes of the queries a file lists: ``columns`` (the attribute columns, in the header's order),
    ``values[column][query ID]`` (an empty text where the cell is empty), the file's ``display`` name, its
    ``id_column`` and the line of its header (``header_line``, where an unknown column is reported)."""

    display: str
    id_column: str
    columns: tuple[str, ...]
    values: Mapping[str, Mapping[str, str]]
    header_line: int

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(self.values[self.columns[0]])

    def column(self, name: str) -> str:
        """The attribute column ``name`` names: the column of that name, else the one whose name it is in another
        case; refused, naming the file, its header line and its columns, where there is none."""
        if name in self.columns:
            return name
        folded = [column for column in self.columns if column.casefold() == name.casefold()]
        if len(folded) == 1:
            return folded[0]
        if name == self.id_column or name.casefold() == self.id_column.casefold():
            raise InputError(self.display, self.header_line, f"an attribute column, not the query ID column "
                             f"{one_line(self.id_column, MAX_NAME_CHARS)!r} (each query would be a group of its own)",
                             f"the column {one_line(name, MAX_NAME_CHARS)!r}",
                             plain_expected=f"a column to group cases by, not the column of their image IDs "
                                            f"{one_line(self.id_column, MAX_NAME_CHARS)!r}")
        raise InputError(self.display, self.header_line, f"a column named {one_line(name, MAX_NAME_CHARS)!r}",
                         f"the attribute columns {listed(list(self.columns), 10)}",
                         plain_expected=f"a column named {one_line(name, MAX_NAME_CHARS)!r}")

    def grouping(self, name: str) -> Grouping:
        """The grouping of the listed queries by the column ``name`` (:meth:`column`): a query's group is its cell;
        an empty cell (or "(none)") and a query the file does not list are in :data:`~evalcore.stats.groups.NO_GROUP`;
        the file's IDs that are no query are counted as unknown."""
        column = self.column(name)
        cells = self.values[column]
        return Grouping(f"{self.display}:{column}", {query: cell for query, cell in cells.items() if cell},
                        listed=frozenset(cells))


def read_query_attributes(source: Source, name: str | None = None) -> QueryAttributes:
    """Read a query attributes file: a header (the query ID column, then at least one attribute column), then one row
    per query, fields separated by commas or tabs as the header's are (CSV quoting allowed); every row has the
    header's number of fields, an empty one for no value; a query ID is listed once.

    >>> attributes = read_query_attributes(b"query_id,site\\nq1,Lyon\\nq2,\\n", "attributes.csv")
    >>> attributes.columns, dict(attributes.grouping("site").of)
    (('site',), {'q1': 'Lyon'})
    >>> read_query_attributes(b"query_id,site\\nq1\\n", "attributes.csv")
    Traceback (most recent call last):
    ...
    evalcore.errors.InputError: attributes.csv, line 2: expected 2 fields (query_id,site), an empty one for no value, found 1 field
    """
    text, display = read_text(source, name)
    first_line, first = first_line_of_text(text)
    delimiter = "\t" if "\t" in first else ","
    check_delimiter(first, first_line, display, (",", "\t"), SHAPE)
    rows = csv_rows(text, display, delimiter)
    try:
        header_line, header = next(rows)
    except StopIteration:
        raise InputError(display, None, SHAPE, "an empty file", plain_expected=PLAIN_SHAPE) from None
    if len(header) < 2:
        raise InputError(display, header_line, SHAPE, f"{len(header)} column ({one_line(header[0], MAX_NAME_CHARS)})",
                         plain_expected=PLAIN_SHAPE)
    for position, column in enumerate(header):
        if not column:
            raise InputError(display, header_line, "a name for every column of the header",
                             f"column {position + 1} without one", plain_expected="a name for every column of the first line")
        if column in header[:position]:
            raise InputError(display, header_line, "distinct column names", f"{one_line(column, MAX_NAME_CHARS)!r} twice",
                             plain_expected="distinct column names")
    columns = tuple(header[1:])
    values: dict[str, dict[str, str]] = {column: {} for column in columns}
    shape = f"{len(header)} fields ({one_line(delimiter.join(header), MAX_NAME_CHARS)}), an empty one for no value"
    for line, fields in rows:
        if len(fields) < len(header) or any(fields[len(header):]):
            raise InputError(display, line, shape, f"{len(fields)} field{'s' if len(fields) != 1 else ''}",
                             plain_expected=f"{len(header)} fields, as the first line names them")
        query = check_id(fields[0], display, line)
        if query in values[columns[0]]:
            raise InputError(display, line, "a query ID listed once", f"{one_line(query, MAX_NAME_CHARS)!r} again",
                             plain_expected="each case listed once")
        for column, cell in zip(columns, fields[1:]):
            values[column][query] = cell
    if not values[columns[0]]:
        raise InputError(display, None, "a row after the header", "a header-only file",
                         plain_expected="a row after the first line")
    return QueryAttributes(display, header[0], columns, values, header_line)
