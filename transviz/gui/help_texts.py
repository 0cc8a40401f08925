"""Help > How to read this tab: a short text per tab, in the language in use."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication

EXPLORER, POSITIONAL, MASKS, TRAINING, LAB = "explorer", "positional", "masks", "training", "lab"


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
        TRAINING: translate(
            "TabHelp",
            "Choose a task and the model's size, then Start. The plots show the training loss of every batch, "
            "the validation loss and exact match at each validation, the learning rate (watch the warm-up: it "
            "climbs from 0 before it levels off or falls) and the share of target tokens predicted right.\n\n"
            "Below, every layer and head of the probe sentence's attention: rows are queries, columns keys, each "
            "row sums to 1. Drag the timeline to go back to an earlier snapshot and watch the alignment form out "
            "of noise. When the run ends, 'Use in explorer' makes the trained model the window's model."),
        LAB: translate(
            "TabHelp",
            "The experiment of the seed tutorial: an encoder stack learns y = (a+1)^2 + b. Each row is one "
            "configuration; its test MSE stands beside the value the tutorial published. Predicting the mean "
            "scores 3.5: a run that ends there learned nothing (marked diverged).\n\n"
            "The plot overlays every run's training loss on a log scale: without warm-up, lr=1e-3 stays on the "
            "3.5 line while the others fall. This is what the lab demonstrates: a Transformer is hard to train "
            "from scratch, and warm-up and a careful initialisation decide whether it learns at all. The quick "
            "preset is shorter than the tutorial's runs, so its numbers differ."),
    }
    return texts.get(tab, "")
