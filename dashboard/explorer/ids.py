"""Ids of the explorer's components that more than one view reads: the header's controls and the page's
stores. A view's own ids live in its module, next to their use."""

URL = "url"
CONFIG = "config"  # the explorer's page config (explorer/__init__.py): allowed values and ids, for the browser
WIDTH_CHANGED = "width-changed"  # pressed by the page when it turns narrow or wide: the display follows
DISPLAY = "display"  # {"narrow": phone-width page, "lecture": lecture mode}: how figures are drawn
LECTURE = "lecture"  # the lecture-mode switch
PRESENTED = "presented"  # the graph id of the figure the presenter view shows alone, full screen ("": none)
HEADS = "heads"
SEED = "seed"
TAB = "tab"
SIZE = "size"  # tokens per cluster
SCALE = "scale"  # which softmax scale: limits.SCALES
TAU = "tau"  # the temperature's slider position
WEIGHTS = "weights"  # the example's weights: limits.WEIGHT_CHOICES
HEATMAPS = "heatmaps"  # the worked example's per-head heatmaps
# The worked example's controls a round trip after its tab store changed (a server callback copies them,
# explorer/example.relay_model): the drill-down and the summary are asked for their tables then, not with the
# heatmaps' figure
MODEL_LATER = "example-model-later"
FORMS = "bilinear-forms"  # the bilinear forms, above the logits: the first grid a click can select a cell on
INFLUENCE = "influence"  # each head's influence N^(i), below the drill-down: the last grid a click can select on
SECTION_PREFIX = "section-"


def section_id(tab: str) -> str:
    """The id of the <section> that holds a tab's view."""
    return SECTION_PREFIX + tab

# The selected cell A^(i)_rj: head i (1..h), query r and key j (0..n-1). A click on any per-head heatmap
# sets them, the drill-down explains that weight, and every view that shows the cell outlines it.
SEL_HEAD = "sel-head"
SEL_QUERY = "sel-query"
SEL_KEY = "sel-key"

# The learning lab's training seed: the one the page asks for (the seed box's, on load too), and the last one the
# server said is trained. The lab and its surgery draw a seed's runs only while the two agree.
LEARN_REQUESTED = "learn-requested"
LEARN_READY = "learn-ready"
LEARN_STEP = "learn-step"  # the training step shown; ← and → step through it on the learning tab
