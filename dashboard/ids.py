"""Ids of the components that more than one view reads: the header's controls and the page's stores.
A view's own ids live in its module, next to their use."""

URL = "url"
CONFIG = "config"  # limits.client_config(): the allowed values, for assets/clientside.js
NARROW = "narrow"  # true on a phone-width page: figures put fewer panels in a row
HEADS = "heads"
SEED = "seed"
TAB = "tab"
SECTION_PREFIX = "section-"


def section_id(tab: str) -> str:
    """The id of the <section> that holds a tab's view."""
    return SECTION_PREFIX + tab
