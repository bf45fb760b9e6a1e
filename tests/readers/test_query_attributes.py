"""Query attributes files (evalcore.readers.query_attributes): what a row holds, each refusal in one line naming the
file and the line."""

from __future__ import annotations

import pytest

from evalcore.errors import InputError, ParameterError
from evalcore.readers.query_attributes import read_query_attributes


def test_csv_and_tab_separated_files_with_quotes_and_empty_cells():
    csv = read_query_attributes(b'query_id,site,note\nq1,"Lyon, east",x\nq2,,\n\nq3,Paris,\n', "a.csv")
    assert csv.columns == ("site", "note") and csv.ids == ("q1", "q2", "q3")
    grouping = csv.grouping("site")
    assert dict(grouping.of) == {"q1": "Lyon, east", "q3": "Paris"} and grouping.listed == {"q1", "q2", "q3"}
    assert grouping.name == "a.csv:site"
    tsv = read_query_attributes(b"\xef\xbb\xbfID\tsite\r\nq1\tLyon\r\n", "a.tsv")
    assert dict(tsv.grouping("SITE").of) == {"q1": "Lyon"}


@pytest.mark.parametrize("data, said", [
    (b"", "a.csv: expected a header naming the query ID column, then the attribute columns (query_id,site), found an "
          "empty file"),
    (b"query_id\nq1\n", "a.csv, line 1: expected a header naming the query ID column, then the attribute columns "
                        "(query_id,site), found 1 column (query_id)"),
    (b"query_id,site\n", "a.csv: expected a row after the header, found a header-only file"),
    (b"query_id,site,site\nq1,a,b\n", "a.csv, line 1: expected distinct column names, found 'site' twice"),
    (b"query_id,,x\nq1,a,b\n", "a.csv, line 1: expected a name for every column of the header, found column 2 without one"),
    (b"query_id,site\nq1,a\nq2\n", "a.csv, line 3: expected 2 fields (query_id,site), an empty one for no value, found "
                                   "1 field"),
    (b"query_id,site\nq1,a,extra\n", "a.csv, line 2: expected 2 fields (query_id,site), an empty one for no value, "
                                     "found 3 fields"),
    (b"query_id,site\nq1,a\n\nq1,b\n", "a.csv, line 4: expected a query ID listed once, found 'q1' again"),
    (b"query_id,site\nq 1,a\n", "a.csv, line 2: expected an image ID without spaces (1-300 characters), found 'q 1'"),
    (b"query_id;site\nq1;a\n", "a.csv, line 1: expected a header naming the query ID column, then the attribute "
                               "columns (query_id,site) with fields separated by ',' or a tab, found ';' as the "
                               "delimiter"),
    (b'query_id,site\nq1,"a\n', "a.csv, line 2: expected well-formed CSV"),
    (b"query_id,site\nq1,\xff\n", "a.csv, line 2: expected UTF-8 text, found byte 0xff"),
])
def test_a_malformed_file_is_refused_in_one_line_naming_file_and_line(data, said):
    with pytest.raises(InputError) as refused:
        read_query_attributes(data, "a.csv")
    assert str(refused.value).startswith(said) and "\n" not in str(refused.value)


def test_an_unknown_column_and_the_id_column_are_refused_naming_the_header_line():
    attributes = read_query_attributes(b"\n \nquery_id,site\nq1,a\n", "a.csv")  # the header on line 3
    with pytest.raises(InputError, match=r"^a.csv, line 3: expected a column named 'scanner', found the attribute "
                                         r"columns site$"):
        attributes.grouping("scanner")
    with pytest.raises(InputError, match=r"^a.csv, line 3: expected an attribute column, not the query ID column "
                                         r"'query_id'"):
        attributes.grouping("query_id")


def test_a_column_of_more_than_100_values_is_refused():
    rows = "".join(f"q{i},{i}\n" for i in range(101))
    with pytest.raises(ParameterError, match=r"^a.csv:site: at most 100 groups, found 101"):
        read_query_attributes(f"query_id,site\n{rows}".encode(), "a.csv").grouping("site")
