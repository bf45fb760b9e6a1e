"""Edges a hostile run found in extraction's inputs (issue 67): a name of thousands of words, which made a caption cost
its words times the name's, and rule files whose fields hold a character ``str.splitlines`` breaks at."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from evalcore.errors import InputError
from evalcore.extraction.extractor import ConceptDictionary, extract
from evalcore.extraction.rule_files import MAX_NAME_CHARACTERS, MAX_NAME_WORDS, Column, read_rule_file, text_lines
from evalcore.extraction.user_rules import RULE_COLUMNS, read_user_rules
from evalcore.readers.names import read_names_to_find

# --- a name's words are bounded ----------------------------------------------------------------------------------


def extraction_seconds(name_words: int, caption_words: int = 4000) -> float:
    """Seconds to extract from a caption of ``caption_words`` times "lung" with a dictionary holding a name of
    ``name_words`` times "lung" and a last word the caption lacks: every caption word begins a walk as long as the
    name (the best of three)."""
    dictionary = ConceptDictionary.build({"C0000001": " ".join(["lung"] * name_words) + " zebra",
                                          "C0024109": "Lung"})
    caption = " ".join(["lung"] * caption_words)
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        assert extract(caption, dictionary) == {"C0024109"}
        best = min(best, time.perf_counter() - began)
    return best


def test_a_name_of_thousands_of_words_costs_no_more_than_one_at_the_bound() -> None:
    """A 4,000-word caption with a 20,000-word name: a walk of every caption word along the name is about 4,000 / 2
    steps a word, 30 times the bound's 64; the long name left out costs no more than the name at the bound (the
    margin, 4 times, leaves room for a loaded machine without letting the old cost pass)."""
    at_bound = extraction_seconds(MAX_NAME_WORDS - 1)
    assert extraction_seconds(20_000) < 4 * at_bound + 0.05


def test_a_name_over_the_bound_is_left_out_of_the_dictionary_and_one_at_it_is_read() -> None:
    at_bound, over = (" ".join(["lung"] * words) for words in (MAX_NAME_WORDS, MAX_NAME_WORDS + 1))
    dictionary = ConceptDictionary.build({"C0000001": at_bound, "C0000002": over, "C0024109": "Lung"},
                                         {"C0024109": [over]})
    assert extract(at_bound, dictionary) == {"C0000001"}
    assert extract(over, dictionary) == {"C0000001", "C0024109"}  # the first 64 words, then "lung"


def test_a_names_file_with_a_name_over_the_bound_is_refused_naming_its_line() -> None:
    long_name = " ".join(["lung"] * 20_000)
    data = f"CUI,Name\nC0000001,Vein\nC0000002,{long_name}\nC0000003,Artery\n".encode()
    with pytest.raises(InputError, match=rf"^names\.csv, line 3: expected a name of at most {MAX_NAME_WORDS} words, "
                                         "found 20,000 words$"):
        read_names_to_find(data, "names.csv")
    mrconso = (f"C0000001|ENG|P|L1|PF|S1|Y|A1||||MSH|MH|D1|Vein|0|N||\n"
               f"C0000002|ENG|P|L2|PF|S2|Y|A2||||MSH|MH|D2|{long_name}|0|N||\n").encode()
    with pytest.raises(InputError, match=r"^MRCONSO\.RRF, line 2: expected a name of at most"):
        read_names_to_find(mrconso, "MRCONSO.RRF")
    at_bound = " ".join(["lung"] * MAX_NAME_WORDS)
    assert read_names_to_find(f"CUI,Name\nC0000001,{at_bound}\n".encode(), "names.csv") == {"C0000001": at_bound}


@pytest.mark.parametrize("blank", ["", " ", "\t"])
def test_a_blank_name_or_synonym_is_left_out_of_the_dictionary(blank: str) -> None:
    """A blank name or synonym given to the API names nothing: it is left out, not a crash in the name variants."""
    dictionary = ConceptDictionary.build({"C0000001": blank, "C0024109": "Lung"}, {"C0000001": [blank, "vein"],
                                                                                  "C0024109": [blank]})
    assert extract("the lung and a vein", dictionary) == {"C0000001", "C0024109"}
    assert extract(f"a{blank}b", dictionary) == set()


@pytest.mark.parametrize("row", ["C0000002,", 'C0000002,""', "C0000002, "])
def test_a_names_file_with_an_empty_name_is_refused_naming_its_line(row: str) -> None:
    data = f"CUI,Name\nC0000001,Vein\n{row}\nC0000003,Artery\n".encode()
    with pytest.raises(InputError, match=r"^names\.csv, line 3: expected a name for C0000002, found an empty name$"):
        read_names_to_find(data, "names.csv")
    mrconso = b"C0000001|ENG|P|L1|PF|S1|Y|A1||||MSH|MH|D1|Vein|0|N||\nC0000002|ENG|P|L2|PF|S2|Y|A2||||MSH|MH|D2||0|N||\n"
    with pytest.raises(InputError, match=r"^MRCONSO\.RRF, line 2: expected a name for C0000002, found an empty name$"):
        read_names_to_find(mrconso, "MRCONSO.RRF")


def test_a_name_of_one_long_word_is_bounded_by_its_characters() -> None:
    """A one-word name of thousands of characters passes the word bound; the character bound refuses it in a names file
    (naming its line), and one over the CSV field limit is refused as such, not read again as a whole file."""
    long_word = "x" * (MAX_NAME_CHARACTERS + 1)
    with pytest.raises(InputError, match=r"^names\.csv, line 3: expected a name of at most 1,000 characters, found "
                                         r"1,001 characters$"):
        read_names_to_find(f"CUI,Name\nC0000001,Vein\nC0000002,{long_word}\n".encode(), "names.csv")
    with pytest.raises(InputError, match=r"^names\.csv, line 2: expected well-formed CSV, found field larger than"):
        read_names_to_find(f"CUI,Name\nC0000002,{'x' * 200_000}\n".encode(), "names.csv")
    dictionary = ConceptDictionary.build({"C0000001": long_word, "C0024109": "Lung"}, {"C0024109": [long_word]})
    assert extract(f"{long_word} lung", dictionary) == {"C0024109"}


def test_a_rules_file_with_words_over_the_bound_is_refused_naming_its_line(tmp_path: Path) -> None:
    path = tmp_path / "rules.tsv"
    path.write_text("kind\twords\tconcept\tsource\nsynonym\theart shadow\tC0018787\tour lab\n"
                    f"exclude\t{' '.join(['lung'] * 20_000)}\tC0024109\tour lab\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"rules\.tsv, line 3: expected column 2 \(words\): at most {MAX_NAME_WORDS} "
                                         "words, found 20,000 words$"):
        read_user_rules([path])


# --- lines end at \n, \r\n and \r only ---------------------------------------------------------------------------

@pytest.mark.parametrize("inside", ["\u2028", "\u2029", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85"])
def test_a_character_splitlines_breaks_at_stays_inside_its_field(tmp_path: Path, inside: str) -> None:
    path = tmp_path / "rules.tsv"
    for end in ("\n", "\r\n", "\r"):
        path.write_bytes(f"kind\twords\tconcept\tsource{end}synonym\theart{inside}shadow\tC0018787\tour lab{end}"
                         f"synonym\tcardiac shadow\tC0018787\tour{inside}lab{end}".encode())
        rows = read_rule_file(path, RULE_COLUMNS)
        assert [(row.line, row["words"], row["source"]) for row in rows] == [
            (2, f"heart{inside}shadow", "our lab"), (3, "cardiac shadow", f"our{inside}lab")]


def test_lines_end_only_at_line_feed_carriage_return_or_both() -> None:
    assert text_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]
    assert text_lines("a\n\nb\n") == ["a", "", "b"]
    assert text_lines("") == []


def test_an_empty_rules_file_is_still_refused_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "rules.tsv"
    path.write_bytes(b"")
    with pytest.raises(InputError, match="found an empty file"):
        read_rule_file(path, [Column("words"), Column("source")])


@pytest.mark.parametrize(("second", "given"), [
    ("synonym\theart shadow\tC0018787", "a synonym"),  # the same row again
    ("exclude\tHeart  Shadow\tC0018787", "a synonym"),  # words both a synonym of the concept and excluded for it
])
def test_a_rules_file_giving_words_for_a_concept_twice_is_refused_naming_the_later_line(tmp_path: Path, second: str,
                                                                                      given: str) -> None:
    """One of the two rows would do nothing (an exclusion takes away the synonym beside it): the later is refused."""
    rules = tmp_path / "rules.tsv"
    rules.write_text(f"kind\twords\tconcept\tsource\nsynonym\theart shadow\tC0018787\tme\n{second}\tme\n")
    words = second.split("\t")[1]
    with pytest.raises(InputError, match=rf"rules\.tsv, line 3: expected column 2 \(words\): words not given for "
                                         rf"C0018787 before, found '{' '.join(words.split())}', given before as {given} "
                                         "of it$"):
        read_user_rules([rules])
    rules.write_text("kind\twords\tconcept\tsource\nsynonym\theart shadow\tC0018787\tme\n"
                     "exclude\theart shadow\tC0018788\tme\n")  # (the same words for another concept are no repeat)
    read = read_user_rules([rules])
    assert (dict(read.synonyms), read.exclusions) == ({"C0018787": ("heart shadow",)}, {("heart shadow", "C0018788")})
