"""Every text the dashboard shows both readers, written once for each: the researcher's words and the clinician's.

A message is a :class:`Wording`, a pair written by hand; :func:`say` gives the session's reader its wording of a
keyed message (:data:`MESSAGES`), :func:`words` that of any pair. A label made from a value (a metric's header, a
family's or group's title, a system's name, a p-value, a path step's link) has its small per-reader function here
(:func:`metric_header` and its neighbours), so that a page asks for it instead of choosing between two texts. Nothing
here rewrites one reader's text into the other's: a clinician's sentence is written as a clinician reads it.

What evalcore writes in its own words is said to a clinician in two ways. A refused file's reason, an
:class:`~evalcore.errors.InputError`, carries both wordings of what was expected, written where it is raised:
:func:`refusal` puts the clinician's together from the error's parts (the file and line as written, the plain wording,
what was found where it is plain), never from its message. A file's validation report is said by
:func:`plain_report_row`: a sentence evalcore writes the same every time has its clinician twin here
(:data:`REPORT_KINDS`, :data:`REPORT_SENTENCES`); any other sentence that holds research words
(:data:`RESEARCH_WORDS`), like a refusal with no plain wording, is said as "a detail for the research team", which the
researcher view shows in full, and a plain one as it is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dashboard.session import audience
from dashboard.sidebar import Settings
from evalcore.app.baselines import Baseline
from evalcore.app.explain import RELATION_WORDS, shown_name
from evalcore.errors import InputError, one_line
from evalcore.extraction.evidence import EvidenceRow, defined_long_form
from evalcore.extraction.negation import sentence_at
from evalcore.io.tables import (
    GROUP_TITLES,
    PLAIN_GROUP_TITLES,
    describe_family,
    describe_metric,
    format_p_value,
    plain_metric_help,
    plain_metric_label,
)

READERS = ("researcher", "clinician")


@dataclass(frozen=True)
class Wording:
    """One message in each reader's words (``str.format`` fields where it has values: the same in both)."""

    researcher: str
    clinician: str

    def of(self, reader: str) -> str:
        """The wording of ``reader`` ("clinician" or "researcher")."""
        return self.clinician if reader == "clinician" else self.researcher


def words(message: Wording, **values: object) -> str:
    """The session's reader's wording of ``message``, its fields filled with ``values``."""
    text = message.of(audience())
    return text.format(**values) if values else text


def say(key: str, **values: object) -> str:
    """The session's reader's wording of the message :data:`MESSAGES` keeps under ``key``."""
    return words(MESSAGES[key], **values)


def is_clinician() -> bool:
    """Whether the session's reader is a clinician (for a choice of what to draw, not of words: those are here)."""
    return audience() == "clinician"


def reader_of(reader: str | None) -> str:
    """``reader`` where given, else the session's reader (the per-reader labels below take either).

    >>> reader_of("clinician")
    'clinician'
    """
    return reader or audience()


# --- names: page titles, the navigation, the confidence interval ----------------------------------------------------

#: A page's heading, where a clinician reads another title than the researcher's technical name.
PAGE_TITLES = {
    "Leaderboard": Wording("Leaderboard", "Which system finds similar images best"),
    "Knowledge graph": Wording("Knowledge graph", "Concept map"),
    "Per-query view": Wording("Per-query view", "Image by image: what each system found"),
    "Judge pairs": Wording("Judge pairs", "Rate similar images"),
}
#: A page's name in the navigation (shorter than its heading, which would be cut there).
NAVIGATION_TITLES = {
    "Leaderboard": Wording("Leaderboard", "Compare systems"),
    "Knowledge graph": Wording("Knowledge graph", "Concept map"),
    "Per-query": Wording("Per-query", "Image by image"),
    "Judge pairs": Wording("Judge pairs", "Rate similar images"),
}


def page_title_for(title: str, reader: str) -> str:
    """A page's heading for ``reader``."""
    return PAGE_TITLES[title].of(reader) if title in PAGE_TITLES else title


def navigation_title_for(title: str, reader: str) -> str:
    """A page's name in ``reader``'s navigation."""
    return NAVIGATION_TITLES[title].of(reader) if title in NAVIGATION_TITLES else title


# --- the caption words behind a concept (dashboard.cards) -----------------------------------------------------------

#: What matched a mention (:data:`evalcore.extraction.extractor.SOURCES`): the researcher's source name, and a
#: clinician's words.
MATCHED = {
    "name": Wording("name", "its name"),
    "synonym": Wording("synonym", "another of its names"),
    "abbreviation": Wording("abbreviation", "an abbreviation or imaging term"),
    "assumed": Wording("assumed", "assumed"),
    "defined": Wording("defined", "an abbreviation this caption spells out"),
}


@dataclass(frozen=True)
class Status:
    """Whether a mention was counted (an evidence row's status), in a clinician's words, three ways: as the evidence
    table's verdict, before the sentence quoted (its reason), and after the words (the caption words list)."""

    verdict: str
    before_sentence: str
    after_words: str


STATUS = {
    "kept": Status("yes", "", ""),
    "negated": Status("no: ruled out", "ruled out in", "ruled out"),
    "hypothetical": Status("no: uncertain", "only considered in", "only considered"),
    "history": Status("no: history", "said of the patient's history in", "the patient's history"),
    "other exam": Status("no: other exam", "said of another examination in", "another examination"),
    "literature": Status("no: literature", "said of other patients or the literature in",
                         "other patients or the literature"),
}
#: A status evalcore may add later, not written here yet.
UNKNOWN_STATUS = Status("no", "not counted in", "not this image")


def status_of(status: str) -> Status:
    return STATUS.get(status, UNKNOWN_STATUS)


def status_words(status: str, reader: str | None = None) -> str:
    """A mention's status after the words that were not counted (a caption's concept list): the status itself for a
    researcher, a clinician's words for it.

    >>> status_words("negated", "researcher"), status_words("negated", "clinician")
    ('negated', 'ruled out')
    """
    return status_of(status).after_words if reader_of(reader) == "clinician" else status


#: The extraction evidence table's columns after a mention's words and concept (dashboard.cards.evidence_table):
#: whether it counted, what matched it, and what decided.
EVIDENCE_COLUMNS = (Wording("status", "counted"), Wording("matched", "found as"), Wording("rule", "why"))


def evidence_cells(row: EvidenceRow, caption: str, reader: str | None = None) -> dict[str, str]:
    """A mention's cells under :data:`EVIDENCE_COLUMNS` (``caption``: its image's): its status, source and rule as
    evalcore writes them for a researcher; for a clinician the verdict, the source in words, and why: the sentence
    that ruled it out, the assumed projection, or the long form an abbreviation stands for.

    >>> row = EvidenceRow("b", "C0019080", 3, 13, "hemorrhage", "name", "negated", "negation 'without'")
    >>> evidence_cells(row, "CT without hemorrhage", "researcher")
    {'status': 'negated', 'matched': 'name', 'rule': "negation 'without'"}
    >>> evidence_cells(row, "CT without hemorrhage", "clinician")
    {'counted': 'no: ruled out', 'found as': 'its name', 'why': 'ruled out in: “CT without hemorrhage”'}
    """
    reader = reader_of(reader)
    if reader != "clinician":
        cells = (row.status, row.matched, row.rule)
    else:
        status = status_of(row.status)
        why = (f"{status.before_sentence}: “{sentence_at(caption, row.start)}”" if row.status != "kept" else
               MESSAGES["assumed"].clinician if row.matched == "assumed" else
               f"the caption writes “{row.words}” for “{defined_long_form(caption, row.words)}”"
               if row.matched == "defined" else "")
        cells = (status.verdict, MATCHED[row.matched].clinician if row.matched in MATCHED else row.matched, why)
    return {column.of(reader): cell for column, cell in zip(EVIDENCE_COLUMNS, cells, strict=True)}


# --- what a page names in each reader's words: a metric, a family or group of metrics, a system, a p-value -------------

def metric_header(metric: str, reader: str | None = None) -> str:
    """A metric as a chooser's option, a chart's title or a page's heading: its name for a researcher, its plain label
    for a clinician.

    >>> metric_header("nn-CUI@10", "researcher"), metric_header("nn-CUI@10", "clinician")
    ('nn-CUI@10', 'top 10: concept match, related concepts count')
    """
    return plain_metric_label(metric) if reader_of(reader) == "clinician" else metric


def metric_column(metric: str, reader: str | None = None) -> str:
    """A metric's column inside its family's table, whose title already names the family (and the label target): the
    name before its target for a researcher, the plain label's "top K" for a clinician.

    >>> metric_column("P@5[organ]", "researcher"), metric_column("P@5[organ]", "clinician")
    ('P@5', 'top 5')
    """
    return plain_metric_label(metric).split(":")[0] if reader_of(reader) == "clinician" else metric.split("[")[0]


def metric_help(metric: str, threshold: float | None = None, reader: str | None = None) -> str:
    """What a metric's column measures, for its tooltip: the description with the relevance ``threshold`` for a
    researcher, what its score says in plain words for a clinician.

    >>> metric_help("P@5[organ]", reader="clinician")
    'How often the top 5 contain an image of the same organ as the case, from 0 (never) to 1 (always).'
    """
    return plain_metric_help(metric) if reader_of(reader) == "clinician" else describe_metric(metric, threshold)


def family_label(family: str, metric: str, threshold: float | None = None, reader: str | None = None) -> str:
    """A metric family as a chooser's option (``metric``: one of the family's): its name and description for a
    researcher, what its plain label names for a clinician.

    >>> family_label("P", "P@5[organ]", reader="researcher")
    'P: How often the top K contain an image of the same organ'
    >>> family_label("P", "P@5[organ]", reader="clinician")
    'same organ'
    """
    if reader_of(reader) == "clinician":
        return plain_metric_label(metric).split(": ", 1)[1]
    return f"{family}: {describe_family(metric, threshold)}"


def family_heading(family: str, metric: str, threshold: float | None = None,
                   reader: str | None = None) -> tuple[str, str]:
    """A family's table heading, as its bold title and the description after it (none for a clinician).

    >>> family_heading("P", "P@5[organ]", reader="clinician")
    ('Same organ', '')
    """
    if reader_of(reader) == "clinician":
        return family_label(family, metric, threshold, "clinician").capitalize(), ""
    return family, describe_family(metric, threshold)


def group_title(group: str, reader: str | None = None) -> str:
    """A group of metrics (io.tables.GROUPS) by its title, a clinician's plain one or the researcher's.

    >>> group_title("other", "clinician"), group_title("new group", "researcher")
    ('Other scores', 'new group')
    """
    titles = PLAIN_GROUP_TITLES if reader_of(reader) == "clinician" else GROUP_TITLES
    return titles.get(group, str(group))


def source_name(system: Baseline | str, reader: str | None = None) -> str:
    """A source of retrieved images as a narrow chooser's option: a reference system by its title for a researcher and
    by its short plain words for a clinician; a loaded run by its name.

    >>> from evalcore.app.baselines import NN_IOU
    >>> source_name(NN_IOU, "clinician"), source_name("my-run", "clinician")
    ('Shared or related concepts', 'my-run')
    """
    if not isinstance(system, Baseline):
        return system
    return system.short_plain if reader_of(reader) == "clinician" else system.title


def concept_words(cui: str, name: str | None, reader: str | None = None) -> str:
    """A concept as a label, ``name`` where known: "Name (CUI)" for a researcher, its plain name alone for a
    clinician; where no name is known, the ID for a researcher and "unnamed concept" for a clinician (a code would
    tell them nothing).

    >>> concept_words("C0042449", "Veins", "researcher"), concept_words("C0042449", "Veins", "clinician")
    ('Veins (C0042449)', 'Veins')
    >>> concept_words("C0042449", None, "researcher"), concept_words("C0042449", None, "clinician")
    ('C0042449', 'unnamed concept')
    """
    reader = reader_of(reader)
    return f"{name} ({cui})" if name and reader == "researcher" else shown_name(cui, name, reader)


def focus_chart_titles(metric: str, reader: str | None = None) -> tuple[str, str]:
    """The Leaderboard chart's title and y-axis title for the metric in focus: no title and the metric's name on the
    axis for a researcher; for a clinician the plain label, too long for the axis, titles the chart and the axis says
    the scale.

    >>> focus_chart_titles("CUI@10", "researcher"), focus_chart_titles("CUI@10", "clinician")
    (('', 'CUI@10'), ('top 10: concept match', 'score (0 to 1)'))
    """
    return (plain_metric_label(metric), "score (0 to 1)") if reader_of(reader) == "clinician" else ("", metric)


#: The Leaderboard's line under its tables (:func:`settings_line`).
SETTINGS_LINE = Wording("alpha = {alpha}, n = {n}, KG mode {mode}, {gain} gain{relevant}. Hover a column name for its "
                        "meaning in plain words.", "{plain} Hover a column name for what it measures.")
#: The researcher's words, under the "other" group's tables, for the relevance from which MAP and recall count an image.
RELEVANT_FROM = "; MAP and recall count an image as relevant from relevance {threshold:g}"


def settings_line(settings: Settings, plain: str, threshold: float | None = None, reader: str | None = None) -> str:
    """The Leaderboard's line under its tables: the sidebar's settings for a researcher, with the relevance
    ``threshold`` from which MAP and recall count an image where given; for a clinician ``plain``, the matching
    settings in a clinician's words (:func:`dashboard.ui.plain_settings`). Each then says where a column's meaning is.

    >>> from evalcore.relevance.measures import nn_iou_measure
    >>> chosen = Settings(nn_iou_measure(0.5, 1), nn_iou_measure(0.5, 1), "undirected", (10,), "linear")
    >>> settings_line(chosen, "Only identical concepts count.", 0.5, "researcher")  # doctest: +NORMALIZE_WHITESPACE
    'alpha = 0.5, n = 1, KG mode undirected, linear gain; MAP and recall count an image as relevant from relevance
     0.5. Hover a column name for its meaning in plain words.'
    >>> settings_line(chosen, "Only identical concepts count.", 0.5, "clinician")
    'Only identical concepts count. Hover a column name for what it measures.'
    """
    relevant = RELEVANT_FROM.format(threshold=threshold) if threshold is not None else ""
    return SETTINGS_LINE.of(reader_of(reader)).format(alpha=settings.alpha, n=settings.n, mode=settings.kg_mode,
                                                      gain=settings.gain, relevant=relevant, plain=plain)


#: What a hop is, said to a clinician under the Knowledge graph's neighbourhood (:func:`hop_meaning`).
HOP_MEANING = ("A hop is one link: *is a kind of* (e.g. *Veins* is a kind of *Blood Vessels*) or, where the concept map "
               "says so, *is part of* (e.g. *Head of femur* is part of *Femur*).")


def hop_meaning(reader: str | None = None) -> str | None:
    """What a hop is, for a clinician; None for a researcher, who knows it (the page draws no line then).

    >>> hop_meaning("researcher") is None, hop_meaning("clinician") == HOP_MEANING
    (True, True)
    """
    return HOP_MEANING if reader_of(reader) == "clinician" else None


#: The corrected p-value below which a difference is said to be real (the green of the researcher's grid).
SIGNIFICANCE_LEVEL = 0.05


def plain_significance(p_value: float) -> str:
    """A corrected p-value in a clinician's words: the 5 % level the researcher's grid marks green.

    >>> plain_significance(0.01), plain_significance(0.2)
    ('likely real', 'could be chance')
    """
    return "likely real" if p_value < SIGNIFICANCE_LEVEL else "could be chance"


def significance(p_value: float, reader: str | None = None) -> str:
    """A corrected p-value as a cell shows it: written out for a researcher, said for a clinician.

    >>> significance(0.0004, "researcher"), significance(0.0004, "clinician")
    ('< 0.001', 'likely real')
    """
    return plain_significance(p_value) if reader_of(reader) == "clinician" else format_p_value(p_value)


#: A path step's link in the Knowledge graph's path table (``verb``: the relation's words): up a kind-of link, or down.
STEP_UP = Wording("broader: the previous {verb} it (up)", "the step above {verb} this one")
STEP_DOWN = Wording("narrower: it {verb} the previous (down)", "this one {verb} the step above")


def link_words(link: str, relation: str, reader: str | None = None) -> str:
    """How a path step was reached: "broader: the previous is part of it (up)" for a researcher, "the step above is
    part of this one" for a clinician (no hierarchy jargon); the first step is the "start".

    >>> link_words("is_a", "part_of", "researcher"), link_words("is_a", "part_of", "clinician")
    ('broader: the previous is part of it (up)', 'the step above is part of this one')
    """
    if not link:
        return "start"
    return (STEP_UP if link == "is_a" else STEP_DOWN).of(reader_of(reader)).format(verb=RELATION_WORDS[relation])


# --- the messages of the pages ---------------------------------------------------------------------------------------

#: A confidence interval, named in a sentence.
INTERVAL = Wording("the 95% bootstrap confidence interval",
                   "the range the score would likely fall in on another sample of images")

MESSAGES: dict[str, Wording] = {
    # the sidebar and shared helpers
    "interval": INTERVAL,
    "assumed": Wording("assumed: the region's standard projection, no view stated",
                       "not written in the caption: the usual projection of such an X-ray is assumed"),
    "words_toggle": Wording("Show which caption words gave each concept",
                            "Show where each concept was found in the caption"),
    "words_legend": Wording(
        "Violet: a mention that gave the concept. Grey and struck through: a mention in a negated, hypothetical, "
        "history, other-exam or literature scope (NegEx/ConText-style rule), not extracted.",
        "Violet: the words a concept was read from. Grey and struck through: words the caption rules out (\"no "
        "fracture\"), only considers (\"if\", \"follow-up with\"), says of the patient's history (\"presented "
        "with\"), of another examination (\"seen on the mammogram\"), of other patients in a sentence citing the "
        "literature, or in the story of a case report pasted as the caption, so not counted."),
    "words_counted": Wording("extracted", "counted"),
    "words_not_counted": Wording("not extracted", "not counted"),
    "not_counted_word": Wording(" ({status}: not extracted)", " ({status}: not counted)"),
    "alpha_label": Wording("alpha (weight of near matches)", "How much a related concept counts"),
    "alpha_help": Wording("How much a related concept (e.g. Veins vs Blood Vessels) counts compared with the same "
                          "concept.",
                          "0: only the same concept counts. 1: a related concept (e.g. veins and blood vessels) counts "
                          "as much as the same one."),
    "hops_label": Wording("distance threshold n (KG hops)", "How far apart related concepts may be (links)"),
    "hops_help": Wording("Two concepts count as related when at most n is_a links apart. 0 = the same concept only.",
                         "Two concepts count as related when at most this many 'is a kind of' links apart in the "
                         "concept map. 0: the same concept only."),
    "distinct_concepts": Wording("distinct CUIs", "distinct concepts"),
    "no_kg": Wording("No knowledge graph loaded: nn-IoU equals IoU.",
                     "No concept map loaded: only identical concepts count."),
    "kg_nodes": Wording("KG nodes", "map terms"),
    "kg_edges": Wording("KG edges", "map links"),
    # the progress of the work prepared for the pages (dashboard.computed, dashboard.background)
    "engine_step": Wording("Preparing the knowledge-graph index and the pairwise engine", "Preparing the concept map"),
    "best_by_iou": Wording("IoU", "shared concepts"),
    "best_by_nn_iou": Wording("nn-IoU", "shared concepts, related ones counting"),
    "means_step": Wording("Means and 95% bootstrap intervals", "Averages and their likely ranges"),
    "tests_step": Wording("Significance tests", "Which differences are likely real"),
    "kept_step": Wording("The results kept with the saved link", "The results kept with the link"),
    "caption_names_step": Wording("The concept names the explanations look for in the captions",
                                  "The concept names to look for in the captions"),
    "leaderboard_job": Wording("Leaderboard at the current settings", "Comparison of systems at the current settings"),
    "alpha_beside_job": Wording("Leaderboard at alpha = {alpha:g} (one slider step beside)",
                                "Comparison of systems at the next setting of how much a related concept counts"),
    "hops_beside_job": Wording("Leaderboard at n = {hops} (one slider step beside)",
                               "Comparison of systems at the next setting of how far apart related concepts may be"),
    "tie_relevance": Wording("Tied with {ties:,} other{s} at {label} {value:.2f}; order by file position.",
                             "{ties:,} other image{s} {verb} just as close to the case; they are listed in file order."),
    # the Data page
    "data_intro": Wording(
        "Load concept sets (the ground truth), a knowledge graph, retrieval runs and optional labels, embeddings, "
        "captions and images. Each new file is added to what is already loaded.",
        "Load concept sets (the ground truth), a concept map, the results of retrieval systems and optional labels, "
        "embeddings, captions and images. Each new file is added to what is already loaded."),
    "rocov2_runs_help": Wording("Also reads any run files in a runs/ folder inside it.",
                                "Also reads the systems' results found in its runs folder."),
    "upload_concepts": Wording("Concept sets (ID,CUIs CSV or ID<TAB>C1,C2)",
                               "Concept sets (CSV: image ID, then its concept codes)"),
    "upload_labels": Wording("Labels (ID,modality,organ or kind,class,CUI)", "Labels (CSV: image ID, modality, organ)"),
    "upload_names": Wording("Concept names (CUI,Name or MRCONSO.RRF)", "Concept names (CSV: concept code, name)"),
    "upload_runs": Wording("Run files (TREC or CSV), several at once",
                           "Results of retrieval systems (text or CSV files), several at once"),
    "upload_kg": Wording("Knowledge graph files (edge list, MRREL.RRF, OBO)",
                         "Concept map files (from the research team)"),
    "upload_captions": Wording("Captions (ID,Caption)", "Captions (CSV: image ID, caption)"),
    "upload_vectors": Wording("Embeddings (.npy, .csv or .parquet with an ID column)",
                              "Picture similarity vectors (from the research team)"),
    "upload_vector_ids": Wording("ID list for a .npy file (one ID per line)",
                                 "Image IDs for the vectors file (one per line)"),
    "extraction_intro": Wording(
        "Concept sets from the captions by dictionary matching (longest match of the concept names, the KG's "
        "names, optional synonym files, the built-in imaging vocabulary and clinical synonyms; negated mentions are "
        "not extracted). They replace the loaded concept sets; every page then evaluates on them.",
        "No concept sets, or other ones wanted? The captions can give them: each concept named in a caption, or a "
        "common imaging abbreviation such as CT or MRI, becomes one of the image's concepts; a finding the caption "
        "rules out (\"no fracture\") is not counted."),
    "upload_synonyms": Wording(
        "Synonym files (optional): MeSH descriptors TSV, OBO (UBERON, HPO), DOID allXREFinDO.tsv, MRCONSO.RRF",
        "More names for the concepts (optional): medical vocabulary files, such as MeSH or UMLS"),
    "abbreviations": Wording("Built-in imaging vocabulary and clinical synonyms",
                             "Also read common imaging abbreviations and clinical names (CT, MRI, X-ray, LAD, ...)"),
    "extract_kg_names": Wording("Also look for the KG's node names", "Also look for the concept map's own names"),
    "extract_kg_names_help": Wording(
        "Off, the dictionary is the loaded concept names, as `extract --names` reads them. The KG's names find more "
        "words, many of them ones a collection's curators did not tag: on ROCOv2 test the F1 against the curated "
        "sets is 0.7344 without them and 0.6734 with them (with the built-in vocabulary).",
        "Off, only the collection's own concept names are looked for. The concept map's names find more words, but "
        "many are ones the collection's experts did not tag."),
    "more_statistics": Wording("Effect sizes, ANOVA with Tukey's HSD, and precision-recall curves",
                               "More statistics"),
    "occurrences": Wording("Concept occurrences", "Concepts in all"),
    "download_extracted": Wording("Download the extracted concept sets (ID,CUIs CSV)",
                                  "Download these concept sets (CSV)"),
    "audit_intro": Wording(
        "Audit the extraction before evaluating it: choose a concept to list the images whose set holds it or whose "
        "caption mentions it without its being extracted (negated, hypothetical, history, other exam, literature), "
        "then an image to see its mentions.",
        "Choose a concept to list the images whose caption names it (counted or not), then an image: its caption "
        "shows the words each concept was read from."),
    "image_not_counted": Wording(" (not extracted)", " (named, not counted)"),
    "images_with_concept": Wording("{held:,} image{s} with this concept; {more:,} more whose caption mentions it, "
                                   "none kept.",
                                   "{held:,} image{s} with this concept; {more:,} more whose caption names it "
                                   "without its counting."),
    "loaded_kg": Wording("knowledge graph files", "concept map files"),
    "loaded_runs": Wording("runs", "systems' results"),
    "background_intro": Wording(
        "What the Leaderboard reads is computed on this server's background thread as soon as data or settings "
        "change; a page asking for it before it is ready waits for it, with its progress.",
        "The comparison of systems is prepared while you look at the data; a page that needs it before it is ready "
        "waits for it with a progress bar."),
    # the Leaderboard
    "leaderboard_intro": Wording(
        "Each row is a retrieval system; each column a metric averaged over queries, with its 95% bootstrap "
        "confidence interval (low, high). Relevance between two images is the overlap of their concepts (IoU), or "
        "nn-IoU, which also credits concepts that are neighbours in the knowledge graph. The best value per column "
        "is green.",
        "Each row is a retrieval system; each column a score from 0 to 1 averaged over all cases (higher is "
        "better), with the range it would most likely fall in on another sample of images (low, high). The best "
        "value per column is green."),
    "baselines_label": Wording("Table-1 baselines (computed here, ranked over the whole collection)",
                               "Reference systems (computed here over the whole collection)"),
    "baselines_help": Wording("The paper's Table 1: retrieval by IoU, by nn-IoU and by caption (or image) embeddings.",
                              "Simple systems to compare with: images ranked by the concepts they share with the "
                              "case, by similar captions or by similar pictures."),
    "no_systems": Wording("No runs loaded: upload run files on the Data page or choose a Table-1 baseline above.",
                          "No systems' results loaded: upload them on the Data page or choose a reference system "
                          "above."),
    "metrics_label": Wording("Metrics", "Scores"),
    "family_label": Wording("Metric family", "Score"),
    "ceiling": Wording(
        "Retrieval by IoU (nn-IoU) ranks the pool by the relevance that CUI@K (nn-CUI@K) grades with: it scores 1 "
        "there by construction (the ideal ranking), an upper bound rather than a competitor.",
        "A reference system that orders the images by the concept match itself scores 1.0000 on that score by "
        "construction: it is the best order possible, shown as a ceiling, not as a competitor."),
    "label_counts_end": Wording(" (each label's precision averages over the queries that have the label).",
                                " (each label's score averages over the cases that have the label)."),
    "focus_label": Wording("Metric for the chart and the significance tests",
                           "Score shown in the chart and the comparison of systems"),
    "chart_caption": Wording("Bars: mean over queries; whiskers: 95% bootstrap confidence interval.",
                             "Bars: average over all cases; whiskers: " + INTERVAL.clinician + "."),
    "significance_intro": Wording(
        "**Is the difference real?** Paired randomization test between each pair of systems; p-values corrected for "
        "testing several pairs at once (Holm). Green: p < 0.05, a difference unlikely to be chance. With {samples:,} "
        "randomizations no p-value is below 1/({samples:,} + 1) = {smallest:.2g} before Holm's correction.",
        "**Is the difference real?** Each cell compares two systems: \"likely real\" (green) where chance alone would "
        "give a difference this large less than 5 times in 100, allowing for the several pairs compared; \"could be "
        "chance\" otherwise."),
    "interval_low": Wording("Lower end of the 95% bootstrap confidence interval of {metric}",
                            "Low end of " + INTERVAL.clinician),
    "interval_high": Wording("Upper end of the 95% bootstrap confidence interval of {metric}",
                             "High end of " + INTERVAL.clinician),
    "interval_low_header": Wording("CI low", "low"),
    "interval_high_header": Wording("CI high", "high"),
    "download_results": Wording("Results with 95% CIs (CSV)", "Scores with their ranges (CSV)"),
    "download_per_query": Wording("Per-query values (CSV)", "Scores per case (CSV)"),
    "download_report": Wording("Report for the paper (HTML)", "Comparison to share (web page)"),
    "download_report_help": Wording(
        "One self-contained HTML file (no network needed): leaderboard with 95% CIs, significance grids, effect sizes "
        "with the repeated-measures ANOVA and Tukey's HSD, ablation curves over alpha and n, 11-point "
        "precision-recall curves, measure settings, input files with their digests, the evalcore version and the "
        "cbir-lens command that recreates it.",
        "The comparison in plain words, on the score shown in the chart: which system finds more similar images, by "
        "how much and whether the difference is likely real, every system's score with its range, and three example "
        "cases with the first image each of the best two systems found and why. One page that opens in any web "
        "browser, without a network connection."),
    # the Leaderboard's effect sizes, ANOVA and precision-recall curves (a researcher's; the clinician twins are
    # written for completeness, the page draws none of them for a clinician)
    "effects_intro": Wording(
        "**How large is each difference?** Mean over queries of {metric}(A) - {metric}(B) and Cohen's d_z (that mean "
        "over the standard deviation of the differences), each with its 95% percentile bootstrap interval over the "
        "queries both systems were scored on.",
        "**How large is each difference?** The average difference between two systems, with the range it would "
        "likely fall in on another sample of cases."),
    "anova_sentence": Wording(
        "**One test over all {systems} systems:** one-way repeated-measures ANOVA on {metric}, queries as subjects "
        "({queries:,} queries every system was scored on): F({df_systems}, {df_error}) = {f:.2f}, p {p}, partial "
        "eta squared {partial:.3f}, generalized eta squared {generalized:.3f}. Below, Tukey's HSD on its residual "
        "mean square: every pair's difference with its 95% simultaneous interval.",
        "**Do the systems differ at all?** One check over every system at once, then every pair's difference with "
        "the range it would likely fall in."),
    "precision_recall_intro": Wording(
        "**Precision-recall** (trec_eval's 11-point interpolated precision, {first} ... {last}): at each recall level "
        "L = 0, 0.1, ..., 1 the best precision at any rank where a share L of the query's relevant images are found, "
        "averaged over queries; relevance as the metric in focus reads it, {relevant}.",
        "**How the share of good matches falls as a system finds more of them.**"),
    "precision_recall_recall": Wording("recall", "share of the similar images found"),
    "precision_recall_precision": Wording("interpolated precision", "share of good matches"),
    # the Leaderboard's "By group" view
    "by_group_toggle": Wording("By group: the metric in focus per modality, organ, number of concepts or your own "
                               "query attributes", "By group: how each system does on each kind of image"),
    "by_group_intro": Wording(
        "{metric} per group of queries: each system's mean with its 95% bootstrap confidence interval; a query "
        "without a value is in the group (none). Below, the groups where two systems differ significantly: paired "
        "randomization test per group, Holm-corrected across the groups, p < 0.05.",
        "{metric}, group by group: each system's average with the range it would likely fall in on another sample "
        "of images. Below, the groups where two systems differ by more than chance would make, allowing for the "
        "several groups compared."),
    "group_by_label": Wording("Group queries by", "Group the cases"),
    "group_modality": Wording("modality", "by kind of image"),
    "group_organ": Wording("organ", "by body part"),
    "group_concepts": Wording("number of concepts (quantile bins)", "by number of findings in the image"),
    "no_group": Wording("(none)", "(not recorded)"),
    "group_axis": Wording("{metric}: mean and 95% CI", "{metric}: average and likely range"),
    "group_system_a": Wording("System A", "First system"),
    "group_system_b": Wording("System B", "Second system"),
    "group_queries": Wording("queries", "cases"),
    "group_difference": Wording("A - B", "difference"),
    "group_p_header": Wording("p rand. (Holm across groups)", "is it real?"),
    "significant_groups": Wording("Groups where {a} and {b} differ significantly (of {count} tested):",
                                  "Groups where {a} and {b} differ by more than chance (of {count} compared):"),
    "no_significant_group": Wording(
        "No group where {a} and {b} differ significantly after Holm's correction across the {count} groups tested.",
        "In none of the {count} groups do {a} and {b} differ by more than chance."),
    "no_grouping": Wording("No grouping: load labels (modality, organ) or concept sets on the Data page, or upload "
                           "query attributes here.",
                           "No way to group the cases: load labels or concept sets on the Data page."),
    # Per-query and Case view
    "also_show_baselines": Wording("Also show baselines (computed here over the whole collection)",
                                   "Also show reference systems (computed here over the whole collection)"),
    "find_query": Wording("Find a query by image ID, concept or caption word",
                          "Find an image by its ID, a concept or a caption word"),
    "no_query_matches": Wording("No query matches {search!r}.", "No image matches {search!r}."),
    "top_k": Wording("Top K shown", "Images shown per system"),
    "query": Wording("Query", "Image"),
    "candidates": Wording("{count:,} candidate quer{ending} listed.", "{count:,} image{s} listed."),
    "candidates_cut": Wording(
        " Only the first {count:,} are listed: to find another, type its whole image ID in the Query box, or part of "
        "its ID, a concept or a caption word in the search box above.",
        " Only the first {count:,} are listed: to find another, type its whole ID in the Image box, or part of its ID, "
        "a concept or a caption word in the search box above."),
    "query_help": Wording(
        "The first {count:,} queries of the list are offered. Another one: type its whole image ID here, or part of "
        "its ID, a concept or a caption word in the search box above.",
        "The first {count:,} images are offered. Another one: type its whole ID here, or part of its ID, a concept or "
        "a caption word in the search box above."),
    "query_not_listed": Wording(
        "{typed!r} is not among the {count:,} queries listed, and no image has this ID: type part of its ID, a "
        "concept or a caption word in the search box above to list the queries that match.",
        "{typed!r} is not among the {count:,} images listed, and no image has this ID: type part of its ID, a "
        "concept or a caption word in the search box above to list the images that match."),
    "case_system_help": Wording(
        "A loaded run, or retrieval by concept overlap computed here over the whole collection.",
        "The results of a system loaded from a file, or the images that share the most concepts with the case, found "
        "here over the whole collection."),
    "related_only_help": Wording(
        "Cases whose top images by nn-IoU differ from those by IoU: there a related concept, not only identical "
        "ones, explains a result.",
        "Cases whose top images change when related concepts count: there a related concept, not only identical "
        "ones, explains a result."),
    "no_case": Wording("This system has no query with a concept set.",
                       "This system found no case whose image has known concepts."),
    "case_choice": Wording("Case (query image)", "Case"),
    "case_heading": Wording("Query", "The case"),
    "case_word": Wording("The query", "The case"),
    "retrieved_by_reference": Wording("By {title}: {plain}.", "The images with {plain}."),
    # the Knowledge graph
    "map_word": Wording("KG", "concept map"),
    "kg_concepts": Wording("Concepts in the KG", "Concepts on the map"),
    "kg_size": Wording("KG nodes / edges", "Map terms / links"),
    "kg_size_words": Wording("nodes and edges.", "terms and links."),
    "search_how": Wording("by name or CUI", "by name"),
    "type_a_name": Wording("Type part of a name (or a CUI); the best match is selected and the others are listed in "
                           "the box.",
                           "Type part of a name; the best match is selected and the others are listed in the box."),
    # the Method page's worked example: a vein and a blood vessel, on CT
    "example_vein": Wording("vein (C0042449)", "vein"),
    "example_vessel": Wording("blood vessel (C0005847)", "blood vessel"),
    "example_ct": Wording("CT (C0040405)", "CT"),
    # Concept detection
    "upload_predictions": Wording("Predicted concepts (ID,CUIs)",
                                  "Predicted concepts (a CSV of image ID, then its concept codes)"),
    "subset_label": Wording("Concept subset for the secondary F1 (CUIs separated by spaces, commas or lines)",
                            "Concepts that count for the second score (concept codes separated by spaces)"),
    # the validation report and a refused file, said to a clinician (plain_report_row, refusal)
    "detail_for_researchers": Wording("{sentence}",
                                      "a detail for the research team (the researcher view shows it in full)"),
    "rows_of_run": Wording("{count} queries", "{count} case{s}"),
    # the Judging page
    "judge_intro": Wording(
        "Grade how relevant the candidate is to the case: 0 not relevant, 1 partly relevant, 2 relevant. No system "
        "and no score is shown. Keys: 0, 1 and 2 grade, S skips, U undoes your last judgment.",
        "How similar is the image on the right to the case on the left? 0 not similar, 1 somewhat similar, 2 very "
        "similar. Keys: 0, 1 and 2 rate, S skips, U undoes your last rating."),
    "judge_name": Wording("Judge's name", "Your name"),
    "judge_name_help": Wording(
        "Your judgments are kept on this server under this name, for this collection of images; the link to this "
        "view reopens judging where you stopped.",
        "Your ratings are kept on this server under this name; the link to this page brings you back where you "
        "stopped."),
    "judge_pick": Wording("Or continue as", "Or continue as"),
    "judge_pick_placeholder": Wording("a judge of this collection", "someone who rated these images"),
    "judge_needs_name": Wording("Enter your name to start judging.", "Enter your name to start rating."),
    "judge_bad_name": Wording("Not a name judgments can be kept under ({problem}).",
                              "Please use another name ({problem})."),
    "judging_as": Wording("Judging as **{name}**.", "Rating as **{name}**."),
    "judge_design": Wording("{description}",
                            "The pairs are chosen so that every degree of likeness comes up; a few come back later, to "
                            "see how steady the ratings are."),
    "judge_progress": Wording("{done} of {total} pairs judged", "{done} of {total} pairs rated"),
    "judge_done": Wording("All {total} pairs judged: thank you. Undo takes back the last judgment.",
                          "All {total} pairs rated: thank you. Undo takes back your last rating."),
    "judge_case": Wording("Case", "Case"),
    "judge_candidate": Wording("Candidate", "Image to compare"),
    "judge_no_image": Wording("No image file for {image}.", "No picture for {image}."),
    "judge_captions": Wording("Show the captions", "Show the captions"),
    "judge_captions_help": Wording("Off by default, so that a caption's words do not lead the judgment.",
                                   "Off by default, so that a caption's words do not sway the rating."),
    "grade_0": Wording("0 · not relevant", "0 · not similar"),
    "grade_1": Wording("1 · partly relevant", "1 · somewhat similar"),
    "grade_2": Wording("2 · relevant", "2 · very similar"),
    "judge_skip": Wording("Skip", "Skip"),
    "judge_undo": Wording("Undo", "Undo"),
}


# --- what evalcore writes in its own words: the validation report and a refused file's reason ------------------------

#: A report row's kind (evalcore.app.workspace's report kinds), in both readers' words.
REPORT_KINDS = {
    "demo (synthetic)": Wording("demo (synthetic)", "demo (synthetic)"),
    "concept sets": Wording("concept sets", "concept sets"),
    "concept sets found in the captions": Wording("concept sets found in the captions",
                                                  "concept sets found in the captions"),
    "knowledge graph": Wording("knowledge graph", "concept map"),
    "KG node names": Wording("KG node names", "concept map's names"),
    "runs": Wording("runs", "results of retrieval systems"),
    "labels": Wording("labels", "labels"),
    "concept names": Wording("concept names", "concept names"),
    "captions": Wording("captions", "captions"),
    "images": Wording("images", "images"),
    "embeddings": Wording("embeddings", "picture similarity vectors"),
}
#: A run's report kind (evalcore.app.workspace.run_kind): its system's name, quoted as written.
RUN_KIND = Wording("run '{name}'", "result of a retrieval system '{name}'")
#: A report's sentence that evalcore writes the same every time.
REPORT_SENTENCES = {
    "no run files: the leaderboard computes the Table-1 baselines": Wording(
        "no run files: the leaderboard computes the Table-1 baselines",
        "no results of retrieval systems: the comparison uses the reference systems"),
}
#: Words of a research team's that a clinician is not asked to read (found, never replaced: the sentence holding one
#: is said in other words as a whole).
RESEARCH_WORDS = re.compile(
    r"\bCUIs?\b|\bKG\b|\bIoU\b|\bnn-IoU\b|\bquer(?:y|ies)\b|\bruns?\b|\bembeddings?\b|\bknowledge.graph\b|"
    r"\bTable.1\b|\bqrels\b|\bC\d{7}\b|\b(?:TREC|NPY|PARQUET|MRREL|MRCONSO|OBO|RRF)\b", re.IGNORECASE)
#: How evalcore joins a row's problems.
SENTENCE_JOIN = "; "
#: A refused file's reason, for a clinician (:func:`refusal`): where in the file, as written, and what was expected in
#: the plain words written where it was raised, then what was found where it is plain.
PLAIN_REFUSAL = "{where}: expected {expected}"
PLAIN_FOUND = ", found {found}"


def plain_sentence(sentence: str) -> str:
    """One of evalcore's sentences, said to a clinician: its twin where evalcore writes it the same every time, as
    written where it holds no research words, else "a detail for the research team"."""
    if sentence in REPORT_SENTENCES:
        return REPORT_SENTENCES[sentence].clinician
    if RESEARCH_WORDS.search(sentence):
        return MESSAGES["detail_for_researchers"].clinician
    return sentence


def plain_problems(problems: str) -> str:
    """A report row's problems, sentence by sentence (:func:`plain_sentence`), each said once."""
    return SENTENCE_JOIN.join(dict.fromkeys(plain_sentence(s) for s in problems.split(SENTENCE_JOIN)))


def plain_kind(kind: str) -> str:
    """A report row's kind in a clinician's words (a run's: its system's name as written)."""
    if kind in REPORT_KINDS:
        return REPORT_KINDS[kind].clinician
    if kind.startswith("run '") and kind.endswith("'"):
        return RUN_KIND.clinician.format(name=kind[len("run '"):-1])
    return plain_sentence(kind)


def plain_report_row(row: dict[str, str]) -> dict[str, str]:
    """A validation report's row for a clinician: the file as written, the kind, the count and the problems in
    plain words (each written for the clinician above, not rewritten).

    >>> plain_report_row({"file": "my-run.trec", "kind": "run 'my-run'", "rows read": "12 queries",
    ...                   "problems": "none"})
    {'file': 'my-run.trec', 'kind': "result of a retrieval system 'my-run'", 'rows read': '12 cases', 'problems': 'none'}
    """
    rows = row["rows read"]
    count, _, unit = rows.partition(" ")
    if unit == "queries":
        rows = MESSAGES["rows_of_run"].clinician.format(count=count, s="" if count == "1" else "s")
    return {"file": row["file"], "kind": plain_kind(row["kind"]), "rows read": rows,
            "problems": plain_problems(row["problems"])}


def refusal(error: Exception) -> Wording:
    """Why a file was not loaded (``error``, as evalcore raised it), in both readers' words: the researcher's is
    evalcore's message; the clinician's is put together from an :class:`~evalcore.errors.InputError`'s parts, the
    file and line as written, what was expected in the plain words written where it was raised, and what was found
    where it holds no research word. An error with no plain wording names the file and line and leaves the rest to
    the research team, and another error (no parts to put together) is said sentence by sentence as a report's are.

    >>> bad = InputError("gt.csv", 2, "a list of CUIs (C + 7 digits)", "'C12'",
    ...                  plain_expected="a list of concept codes (C + 7 digits)")
    >>> refusal(bad).clinician
    "gt.csv, line 2: expected a list of concept codes (C + 7 digits), found 'C12'"
    >>> refusal(InputError("gt.csv", 3, "a CUI", "'x'")).clinician
    'gt.csv, line 3: a detail for the research team (the researcher view shows it in full)'
    """
    if not isinstance(error, InputError):
        head, colon, sentence = str(error).partition(": ")
        clinician = head + colon + plain_sentence(sentence) if colon else plain_sentence(head)
    elif error.plain_expected is None:
        clinician = f"{error.where}: {MESSAGES['detail_for_researchers'].clinician}"
    else:
        shown = error.found is not None and not RESEARCH_WORDS.search(error.found)
        clinician = PLAIN_REFUSAL.format(where=error.where, expected=error.plain_expected) + \
            (PLAIN_FOUND.format(found=one_line(error.found)) if shown else "")
    return Wording(str(error), clinician)
