"""Help > How to read this tab: a short text per tab, in the language in use."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication

EXPLORER, POSITIONAL, MASKS = "explorer", "positional", "masks"


def tab_help(tab: str) -> str:
    """How to read the tab ``tab`` (one of the names above); "" for a tab without help."""
    translate = QCoreApplication.translate  # literal arguments, so that lupdate finds every text
    texts = {
        EXPLORER: translate(
            "TabHelp",
            "Type a sentence and press Enter, then Space (or Step) to let the model write one token at a time.\n\n"
            "The grid shows every layer (rows of tiles) and head (columns) of the chosen attention. In each tile a "
            "row is one query: the token that is looking (the decoder's input at that step, or a source token for "
            "the encoder); a column is one key: a token it may look at. A cell's colour is how much of its "
            "attention the query gives to that key. Every row sums to 1, because the softmax turns the row's "
            "scores into shares of one whole. The outlined row is the current step's query. The last column sums "
            "up each layer's heads (their mean, max, or the rollout through the layers).\n\n"
            "Click a head to see it large with its tokens. The bars are the model's most probable next tokens at "
            "the last step: click one to make it write that token instead. Click an earlier output token to go "
            "back to it. In the decoder's self-attention the future is masked: hatched cells."),
        POSITIONAL: translate(
            "TabHelp",
            "The table is the positional encoding PE that is added to the word embeddings, so that the model "
            "knows where each token stands. Each row is a position, each column a dimension. Column 2i is "
            "sin(pos / 10000^(2i/d_model)) and column 2i+1 the cosine of the same angle: low dimensions change "
            "fast from position to position, high ones slowly, like the hands of a clock.\n\n"
            "The 'sin half | cos half' layout reorders the columns as in the seed's figure. The curves show a few "
            "dimensions across positions. PE·PEᵀ compares two positions: its value depends only on how far apart "
            "they are, which lets attention find relative positions."),
        MASKS: translate(
            "TabHelp",
            "A mask says which key each query may attend to (True, light) and which it may not (False, dark).\n\n"
            "The padding mask hides the <pad> tokens that fill the shorter sentences of a batch; the sequence "
            "(causal) mask hides the future from the decoder, so that query t sees keys 0..t only. Decoder "
            "self-attention uses both combined. Blocked scores become -inf, so after the softmax their weight "
            "is 0 and every row still sums to 1.\n\n"
            "The walkthrough shows one head's steps for one query: the raw scores Q·Kᵀ, scaled by 1/sqrt(d_k), "
            "masked, turned into weights by the softmax, and the output: the weights times the value vectors V."),
    }
    return texts.get(tab, "")
