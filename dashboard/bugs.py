"""The mistakes students make when they implement multi-head attention, each one step of the core swapped.

A bug is never a copy of the layer: it names one field of dashboard/steps.Steps, the function that replaces that
step, and the replacement's gradient (for dashboard/backprop.py), and the core's multi_head_attention runs the
rest unchanged. Each also carries what a student reads: the correct line beside the wrong one, what the mistake
does to the numbers, and where it happened in real code. `BUGS` and `NAMES` are what a question needs
(class mode's "Which bug?"). Pure numpy, like the core.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from . import backprop
from .attention import MultiHeadResult, multi_head_attention
from .constants import BUG_NAMES
from .i18n import N_
from .steps import STEPS, Steps, causal_mask, mask_logits, softmax


# ------------------------------------------------------------------------------ the wrong steps


def softmax_over_queries(logits, causal=False):
    """The softmax down each column (over the queries): every key's column sums to 1, a query's row need not."""
    return softmax(mask_logits(logits, causal), axis=-2)


def softmax_over_queries_back(dA, A, logits, causal):
    return backprop.softmax_back(dA, A, axis=-2)


def unscaled(rule, d, h):
    """No 1/sqrt(d_k): the rule at width 1, so a temperature stays (1/τ) and only the 1/sqrt(d_k) goes; with no
    scaling (a rule that is the same at every width) nothing changes."""
    return rule(1)


def scaled_by_model_width(rule, d, h):
    """The scale rule at the model's width d instead of the heads' d/h: 1/sqrt(d) for the seed's."""
    return rule(d)


def keys_times_queries(Q, K):
    """K Q^T: the transpose of Q K^T, so row r holds key r against every query."""
    return K @ Q.swapaxes(-1, -2)


def keys_times_queries_back(dL, Q, K):
    dK, dQ = backprop.scores_back(dL, K, Q)
    return dQ, dK


def split_by_reshape(M, h):
    """reshape(h, n, d_k) of the (n, d) projection, no transpose: head i gets entries i n d_k .. of the flat array,
    rows i n/h .. (i + 1) n/h of M, each cut into h pieces of d_k numbers (a piece never straddles two tokens, as
    d_k divides d), instead of columns i d_k .. (i + 1) d_k - 1 of every token."""
    *batch, n, d = M.shape
    return M.reshape(*batch, h, n, d // h)


def split_by_reshape_back(dS, h):
    *batch, _, n, d_k = dS.shape
    return dS.reshape(*batch, n, h * d_k)


def no_output_projection(concat, W_O):
    """W_O forgotten: the concatenation [head_1 ... head_h] is returned as the output."""
    return concat


def no_output_projection_back(dY, concat, W_O):
    return dY, np.zeros_like(W_O)


def mask_after_softmax(logits, causal=False):
    """The softmax over all n keys, then the keys after each query zeroed, with no renormalising."""
    A = softmax(logits)
    return A * causal_mask(logits.shape[-1]) if causal else A


def mask_after_softmax_back(dA, A, logits, causal):
    S = softmax(logits)
    return backprop.softmax_back(dA * causal_mask(logits.shape[-1]) if causal else dA, S)


# ------------------------------------------------------------------------------------ the bugs


class Bug(NamedTuple):
    key: str  # in URLs and answers
    name: str  # what a student picks from (this and the words below: N_-marked, translated where shown)
    step: str  # the field of Steps it replaces
    forward: Callable
    backward: Callable | None  # the replacement's gradient (None: the scale, which has none)
    causal: bool  # shown with a causal mask (the mask bug needs one)
    correct: str  # the correct numpy line (its comment marked for translation)
    wrong: str  # the student's
    effect: str  # what it does to the numbers
    seen: str  # where it happened in real code (repository and number, plain text)

    @property
    def steps(self) -> Steps:
        return STEPS._replace(**{self.step: self.forward})

    @property
    def gradients(self) -> Steps:
        return backprop.GRADIENTS._replace(**{self.step: self.backward})


BUGS = (
    Bug("softmax-axis", BUG_NAMES["softmax-axis"], "weights", softmax_over_queries,
        softmax_over_queries_back, False,
        # Translators: a line of Python: translate only the comment after the #
        N_("A = softmax(logits, axis=-1)  # over the keys: each query's row sums to 1"),
        # Translators: a line of Python: translate only the comment after the #
        N_("A = softmax(logits, axis=-2)  # over the queries: each key's column sums to 1"),
        N_("Each key's column of A sums to 1 instead of each query's row. A key that many queries like shares its "
           "weight among them, and a query's weights can add up to more or less than 1, so its output is no longer an "
           "average of the values: its size depends on how popular its keys are."),
        # Translators: keep the repositories' names, the issue and PR numbers and code as they are
        N_("labmlai/annotated_deep_learning_paper_implementations issue #146: the DDPM U-Net's attention took its "
           "softmax over the queries (dim=1) instead of the keys; the reporter found the model trained just as "
           "well either way. PetrochukM/PyTorch-NLP issue #2: a softmax over the wrong dimension made every "
           "weight 1.")),
    Bug("no-scale", BUG_NAMES["no-scale"], "scale", unscaled, None, False,
        "logits = Q @ K.swapaxes(-1, -2) / np.sqrt(d_k)",
        "logits = Q @ K.swapaxes(-1, -2)",
        N_("The logits are √d_k times too large (a temperature τ still divides them), so the softmax is sharper: "
           "each query puts more of its weight on its best keys. At h = 8, d_k = 1 and √d_k = 1, and with no "
           "scaling there is no 1/√d_k to forget: the mistake changes nothing there."),
        N_("PAIR-code/tiny-transformers issue #71: the raw attention was not divided by the square root of the "
           "dimension, which its authors thought might explain loss spikes in training.")),
    Bug("scale-d", BUG_NAMES["scale-d"], "scale", scaled_by_model_width, None, False,
        # Translators: a line of Python: translate only the comment after the #
        N_("logits = Q @ K.swapaxes(-1, -2) / np.sqrt(d_k)  # d_k = d // h, a head's width"),
        # Translators: a line of Python: translate only the comment after the #
        N_("logits = Q @ K.swapaxes(-1, -2) / np.sqrt(d)  # the model's width"),
        N_("The logits are √h times too small (a temperature τ still divides them), so the softmax is flatter: "
           "each query spreads its weight more evenly, the more so the more heads. At h = 1, d_k = d, and with no "
           "scaling there is no width to get wrong: the mistake changes nothing there."),
        # Translators: keep the repositories' names, the issue and PR numbers and code as they are
        N_("lucidrains/vit-pytorch issue #65: `self.scale = dim ** -0.5` should have been `dim_head ** -0.5`; "
           "the author fixed it the same day. karpathy/ng-video-lecture PR #6 fixed the same slip.")),
    Bug("kq", BUG_NAMES["kq"], "logits", keys_times_queries, keys_times_queries_back, False,
        # Translators: a line of Python: translate only the comment after the #
        N_("logits = Q @ K.swapaxes(-1, -2)  # row r: query r against every key"),
        # Translators: a line of Python: translate only the comment after the #
        N_("logits = K @ Q.swapaxes(-1, -2)  # row r: key r against every query"),
        N_("The logits are transposed before the softmax, so A[r, j] is how much key r matches query j. Rows "
           "still sum to 1 and the layer is still permutation-equivariant. And in training it is no bug at all: "
           "K Qᵀ with W_Q and W_K swapped is Q Kᵀ, so the layer learns the same thing under the other name."),
        N_("karpathy/llm.c PR #531: the CUDA attention seemed to compute Kᵀ Q instead of Q Kᵀ; the PR was closed "
           "because cuBLAS reads matrices column-major, which transposes them: there was no bug. Whether K Qᵀ is "
           "wrong depends on how the numbers are laid out in memory.")),
    Bug("reshape", BUG_NAMES["reshape"], "split", split_by_reshape, split_by_reshape_back,
        False,
        # Translators: a line of Python: translate only the comment after the #
        N_("Q = (X @ W_Q).reshape(n, h, d_k).swapaxes(0, 1)  # head i: columns i·d_k … of every token"),
        # Translators: a line of Python: translate only the comment after the #
        N_("Q = (X @ W_Q).reshape(h, n, d_k)  # head i: a run of the flat array"),
        N_("Head i's “token r” is d_k numbers cut from the flattened (n, d) projection: one piece of a single "
           "token. Head i (counted from 1) sees only the tokens (i − 1)·n/h to i·n/h − 1 (rounded down, and up), "
           "each cut into h pieces that it treats as separate tokens. Every shape is right and every row sums to 1, but the heads "
           "see different tokens, so the layer is no longer permutation-equivariant. At h = 1 there is nothing to "
           "split: nothing changes."),
        # Translators: keep the repositories' names, the issue and PR numbers and code as they are
        N_("reczoo/FuxiCTR issue #30: `query.view(batch_size * num_heads, -1, attention_dim)` split the heads "
           "without the transpose, in three models. jsbaan/transformer-from-scratch PR #6 fixed the same missing "
           "transpose where the heads are merged, and noted that its copy-task test had passed all along.")),
    Bug("no-wo", BUG_NAMES["no-wo"], "output", no_output_projection, no_output_projection_back, False,
        # Translators: a line of Python: translate only the comment after the #
        N_("output = concat @ W_O  # the heads meet here"),
        # Translators: a line of Python: translate only the comment after the #
        N_("output = concat  # [head_1 … head_h] side by side"),
        N_("Every attention weight is right; only the output is not. Head i writes only its own d_k columns, "
           "and the heads never meet. A trained W_V can often make up for it, which is why it goes unnoticed."),
        N_("karpathy/minGPT issue #118 asked whether the attention forgets W_O (it does not: c_proj is W_O), and "
           "issue #135 why it is needed when the sizes already match: it is where the heads' outputs meet.")),
    Bug("mask-after", BUG_NAMES["mask-after"], "weights", mask_after_softmax, mask_after_softmax_back,
        True,
        # Translators: a line of Python: translate only the comment after the #
        N_("A = softmax(np.where(np.tri(n, dtype=bool), logits, -np.inf))  # mask, then normalise"),
        # Translators: a line of Python: translate only the comment after the #
        N_("A = softmax(logits) * np.tri(n)  # normalise, then zero the later keys"),
        N_("The softmax spreads each row over all n keys, then the keys after the query are zeroed and nothing "
           "renormalises: row r keeps only the share of the keys it may see, so it sums to less than 1 (row 0 "
           "keeps only its own weight). The last row sees every key and is right."),
        N_("huggingface/pytorch-image-models PR #2236: EVA's attention applied its mask after the softmax; the "
           "fix moved it before.")),
)
assert list(BUG_NAMES) == [bug.key for bug in BUGS]
BUGS_BY_KEY = {bug.key: bug for bug in BUGS}

CAUSAL_NOTE = (N_("A causal (decoder) layer lets query r attend to keys 0 … r only. The later keys' logits become −∞ "
             "before the softmax, so e^logit gives them 0 and each row still sums to 1, over the keys it may see. "
             "Position now matters: a causal layer is not permutation-equivariant."),
          "A = softmax(np.where(np.tri(n, dtype=bool), logits, -np.inf))")


def layer(X, W_Q, W_K, W_V, W_O, h, bug: Bug | None = None, scale=None, causal=False) -> MultiHeadResult:
    """MultiHead(X) with `bug` switched in (None: the correct layer); with the bug's own mask if it needs one.
    `scale` as in the core: None, a number, or a rule d_k -> scale (Setting.scale_at)."""
    if bug is None:
        return multi_head_attention(X, W_Q, W_K, W_V, W_O, h, scale, causal)
    return multi_head_attention(X, W_Q, W_K, W_V, W_O, h, scale, causal or bug.causal, bug.steps)


def is_causal(bug: Bug | None, causal: bool) -> bool:
    """Whether the layers are shown with a causal mask: asked for, or needed by the bug."""
    return bool(causal) or (bug is not None and bug.causal)


def trainable(bug: Bug | None, causal: bool = False, scale=None) -> backprop.Layer:
    """The layer with `bug` switched in, with its gradient: for training.train(h, seed, layer=...). `scale` as
    the core's (None: the seed's 1/sqrt(d_k))."""
    if bug is None:
        return backprop.Layer(causal=bool(causal), scale=scale)
    return backprop.Layer(bug.steps, bug.gradients, is_causal(bug, causal), scale)


MYSTERY_SALT = 50_000


def mystery(seed: int, causal: bool = False) -> Bug:
    """The bug mystery number `seed` hides: the same for everyone who opens the same link. With the causal switch
    off, only among the bugs that need no mask, so that no mystery turns its layers triangular by itself (a bug
    that needs the mask is a mystery only with the switch on, where every layer has it)."""
    pool = BUGS if causal else tuple(bug for bug in BUGS if not bug.causal)
    return pool[int(np.random.default_rng([seed, MYSTERY_SALT]).integers(len(pool)))]
