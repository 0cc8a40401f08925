"""Help > How to read this tab (Shift+F1): a short text per tab, then the topics it shares with other
tabs (row labels, colours, summaries and rollout, sampling, beam scores), in the language in use."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from ...core.teaching.tabs import Tab


def tab_help(tab: Tab) -> str:
    """How to read the tab ``tab`` (an id of :data:`transviz.core.teaching.tabs.TABS`, each of which has its text)."""
    return "\n\n".join(help_sections(tab))


def help_sections(tab: Tab) -> list[str]:
    """The paragraphs of the tab's help, each one translated text: the tab's own, then its topics."""
    topics = _topics()
    return [tab_texts()[tab], *(topics[name] for name in TAB_TOPICS.get(tab, ()))]


ROW_LABELS, COLOURS, SUMMARIES, SAMPLING, BEAM = "row labels", "colours", "summaries", "sampling", "beam"
LENS, ALIGNMENT, PATCHING = "lens", "alignment", "patching"
# the topics each tab's help explains after its own text
TAB_TOPICS: dict[Tab, tuple[str, ...]] = {
    "explorer": (ROW_LABELS, COLOURS, SUMMARIES, SAMPLING, BEAM), "masks": (ROW_LABELS, COLOURS),
    "training": (ROW_LABELS, COLOURS, SUMMARIES), "why": (ROW_LABELS, COLOURS), "concepts": (LENS, ALIGNMENT),
    "compare": (PATCHING,)}


def _topics() -> dict[str, str]:
    translate = QCoreApplication.translate
    return {
        ROW_LABELS: translate(
            "TabHelp",
            "Row labels: input -> written token\n"
            "In every map rows are queries and columns are keys. In cross-attention and in the decoder's "
            "self-attention a row is labelled \"input -> written token\", for example \"to -> drink\": the "
            "decoder's input at that position (the token written one step before, or <s> at the start) and the "
            "token the model wrote from that row. The row's attention is what the model looked at to write the "
            "token after the arrow. In the encoder's self-attention rows and columns are the source tokens."),
        COLOURS: translate(
            "TabHelp",
            "Colours\n"
            "A cell's colour is its attention weight on the colour bar's scale: dark is close to 0, bright close "
            "to the top of the bar (1, unless the colour bar names another scale).\n"
            "Yellow chip: a word that is not in the model's vocabulary; the model reads it as <unk>.\n"
            "Orange: the current query (its outlined row) and the current step's token.\n"
            "Dashed chip: a token forced by you (clicked instead of the model's choice).\n"
            "Hatched cells: masked (blocked) keys; the softmax gives them a weight of exactly 0."),
        SUMMARIES: translate(
            "TabHelp",
            "Summaries and rollout\n"
            "The last column of the grid sums up each layer's heads. Mean of heads: the average map (rows still "
            "sum to 1). Max of heads: each cell the strongest head's weight (rows no longer sum to 1). Rollout "
            "(Abnar & Zuidema, 2020) follows the information up through the layers: each layer's mean map A "
            "becomes 0.5·A + 0.5·I, because half of the signal bypasses attention through the residual "
            "connection; its rows are normalised to sum to 1 again; and the layers are multiplied from the "
            "bottom up, R_l = Â_l · R_(l-1). Row q of layer l then says how much of each input token reaches "
            "position q after layer l. For cross-attention, rollout follows the decoder: through its masked "
            "self-attention and, with half of the signal, its cross-attention into the encoder's rollout, so each "
            "row says how much of each source token reaches that decoder position."),
        LENS: translate(
            "TabHelp",
            "The logit lens\n"
            "At the explorer's step, each decoder layer's output (its residual stream) is sent through the model's "
            "final norm, where it has one, and its output layer, as if that layer were the last: each row gives "
            "that layer's most probable next tokens, its own first choice in the row's name, coloured to the "
            "row's largest probability. The last row is the model's own distribution. Beside it, each "
            "cross-attention head's direct term in the written token's logit: its output carried along the "
            "residual path to that logit, the rest of the model frozen; the caption adds the other terms, which "
            "together make the logit."),
        ALIGNMENT: translate(
            "TabHelp",
            "Heads that align\n"
            "Every pair of the task's test split is read with its gold word alignments: at each target word, "
            "each cross-attention head (and each layer's mean map) chooses the source word it weighs most. The "
            "map gives each head's share of choices that are gold links; the caption names the best head and "
            "its alignment error rate (AER). Beside it, one test sentence under the best head: its choices that "
            "are gold links, the gold links it missed, and its choices that are not gold. For a model of subword "
            "pieces a word weighs the sum of its pieces."),
        PATCHING: translate(
            "TabHelp",
            "Activation patching\n"
            "The second page runs sentence B again with one activation taken from sentence A: the encoder's "
            "stream at one source position after one layer, one cross-attention head's output, or the decoder's "
            "stream after one layer, at the chosen output step. Each cell says how far that one value moves B's "
            "output toward A's: the log-probability of A's token minus B's, scaled so that 0 is B's own run and "
            "1 is A's. Both runs read A's output so far; positions need sentences of one length."),
        SAMPLING: translate(
            "TabHelp",
            "Sampling: temperature, top-k, top-p\n"
            "The model gives every token of its vocabulary a score (a logit). The temperature divides the logits "
            "before the softmax: below 1 sharpens the distribution towards the most probable tokens, above 1 "
            "flattens it. Top-k keeps only the k most probable tokens (all: no limit). Top-p keeps the smallest "
            "set of most probable tokens whose probabilities add up to at least p (1: all). The kept "
            "probabilities are renormalised to sum to 1 and the token is drawn from them; a seed makes the draw "
            "repeatable. Greedy decoding always takes the most probable token."),
        BEAM: translate(
            "TabHelp",
            "Beam search and its scores\n"
            "Beam search keeps the best partial translations (hypotheses), as many as its width, and extends "
            "each by every token at each step. A hypothesis's score is the sum of the natural log-probabilities "
            "of its tokens: negative, and closer to 0 means more probable. Hypotheses are ranked by that sum "
            "divided by length^penalty (the length penalty): 0 ranks by the sum itself, which favours short "
            "outputs; 1 ranks by the average log-probability per token. A hypothesis that writes </s> is "
            "finished and keeps its score."),
    }


def tab_texts() -> dict[Tab, str]:
    """Each tab's own text, translated, keyed by its id (tests/gui/test_tabs.py: every id has one)."""
    translate = QCoreApplication.translate  # literal arguments, so that lupdate finds every text
    return {
        "explorer": translate(
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
            "back to it. In the decoder's self-attention the future is masked: hatched cells.\n\n"
            "Test a claim: right-click a head to switch it off (its output zero, its mean, or uniform attention), "
            "let it use another head's pattern, tie its queries to its keys (Q = K), or scale its layer's scores. "
            "Drag along a row of the large head to paint where that query looks. The model decodes again at "
            "once: the bar above the grid lists what is changed (× removes one), edited heads are framed, and "
            "output tokens that changed are marked; their tooltip gives the unchanged model's token and how its "
            "log-probability moved. Ctrl+Z undoes a change, Ctrl+Shift+Z redoes it."),
        "positional": translate(
            "TabHelp",
            "The table is the positional encoding PE that is added to the word embeddings, so that the model "
            "knows where each token stands. Each row is a position, each column a dimension. Column 2i is "
            "sin(pos / 10000^(2i/d_model)) and column 2i+1 the cosine of the same angle: low dimensions change "
            "fast from position to position, high ones slowly, like the hands of a clock.\n\n"
            "The 'sin half | cos half' layout reorders the columns as in the seed's figure. The curves show a few "
            "dimensions across positions. PE·PEᵀ compares two positions: its value depends only on how far apart "
            "they are, which lets attention find relative positions."),
        "masks": translate(
            "TabHelp",
            "A mask says which key each query may attend to (True: a cell in the colour map's top colour, yellow "
            "by default) and which it may not (False: a light grey hatched cell, as masked cells are in every "
            "attention plot).\n\n"
            "The padding mask hides the <pad> tokens that fill the shorter sentences of a batch; the sequence "
            "(causal) mask hides the future from the decoder, so that query t sees keys 0..t only. Decoder "
            "self-attention uses both combined. Blocked scores become -inf, so after the softmax their weight "
            "is 0 and every row still sums to 1.\n\n"
            "The walkthrough shows one head's steps for one query: the raw scores Q·Kᵀ, scaled by 1/sqrt(d_k), "
            "masked, turned into weights by the softmax, and the output: the weights times the value vectors V."),
        "training": translate(
            "TabHelp",
            "Choose a task and the model's size, then Start. The plots show the training loss of every batch, "
            "the validation loss and exact match at each validation, the learning rate (watch the warm-up: it "
            "climbs from 0 before it levels off or falls) and the share of target tokens predicted right.\n\n"
            "Below, every layer and head of the probe sentence's attention: rows are queries, columns keys, each "
            "row sums to 1. Drag the timeline to go back to an earlier snapshot and watch the alignment form out "
            "of noise. When the run ends, 'Use in explorer' makes the trained model the window's model."),
        "lab": translate(
            "TabHelp",
            "The experiment of the seed tutorial: an encoder stack learns y = (a+1)^2 + b. Each row is one "
            "configuration; its test loss (half the mean squared error, the figure the tutorial's tables head "
            "\"MSE\") stands beside the value the tutorial published. Predicting the mean scores 3.5: a run that "
            "ends there learned nothing (marked stuck); a run whose loss blew up to NaN is marked diverged.\n\n"
            "The plot overlays every run's training loss on a log scale: without warm-up, lr=1e-3 stays on the "
            "3.5 line while the others fall. This is what the lab demonstrates: a Transformer is hard to train "
            "from scratch, and warm-up and a careful initialisation decide whether it learns at all. As in the "
            "tutorial's script, attention runs across the batch, not the sequence, and the element-wise task "
            "needs no attention: the lab measures optimisation, not what attention can do. The quick "
            "preset is shorter than the tutorial's runs, so its numbers differ."),
        "heads": translate(
            "TabHelp",
            "Are all these heads needed? Measure switches every head of the loaded model off alone (its output "
            "set to zero) and scores the model on its task's test sentences: a map's cell is the score lost "
            "without that head, in points of exact match (or in nats of the reference tokens' log-probability). "
            "Most cells are near 0: one head alone is rarely missed.\n\n"
            "The prune curve switches heads off one after another, least important first, and scores the model "
            "after each: it stays flat while redundant heads go, then falls. The text beside it counts the heads "
            "that can go before one point of exact match is lost. Without every cross-attention head the "
            "decoder no longer sees the source at all.\n\n"
            "Click a head to switch it off in the explorer, and watch what changes in its translation."),
        "concepts": translate(
            "TabHelp",
            "Pictures the tutorials describe in words, drawn from the loaded model's own weights for the "
            "explorer's sentence at its step: step in the explorer and come back to see the next token's. Choose "
            "a picture on the left; above it stand the tutorial's claim and what the picture shows. The "
            "attention kind and layer (and head, where a picture shows one head) choose what it is drawn "
            "from: the encoder's layers for encoder self-attention, the decoder's otherwise."),
        "compare": translate(
            "TabHelp",
            "Two decoding runs side by side: a minimal pair of sentences (\"ich möchte ein bier\" and \"ich "
            "möchte ein bier trinken\"), or one sentence through two models (the loaded one, a shipped one, or a "
            "checkpoint file, such as one saved earlier in training). Each run is decoded greedily to its end. "
            "Choose the attention kind, the layer and a head or a summary of the layer's heads. Where the two maps "
            "have the same shape, the third map is B − A on a blue-white-red scale centred at 0, its range stated "
            "in its title; where they do not, it says why. Below, the two outputs as a token diff."),
        "variants": translate(
            "TabHelp",
            "Two to four models decode one sentence side by side, a step at a time: Space steps every model that "
            "has not ended, Left goes back, Home starts again, End decodes to the end. The shipped siblings were "
            "trained on the same task as the 2017 default, each with one change: grouped-query (gqa) or "
            "multi-query (mqa) attention, rotary (rope) or ALiBi positions, a sliding window, pre-norm, or one "
            "decoder-only stack. Each model shows the same attention kind, layer and head on one colour scale, "
            "with its parameters, the bytes its KV cache holds now and adds per token, and its test exact match. "
            "The head buttons are framed by the keys and values they share: one frame per head for multi-head "
            "attention, one frame around all for multi-query. A decoder-only model has one self-attention map: "
            "its output rows are drawn whole, the source part left of the dashed line. Outputs that differ from "
            "the first model's are marked as in the Compare tab."),
        "why": translate(
            "TabHelp",
            "Two claims of the tutorial, computed live.\n\n"
            "Why scale by 1/√d_k: q and k are random vectors of d_k entries drawn from N(0, 1). Their dot product "
            "q·k adds up d_k products, so its spread (standard deviation) grows as √d_k: the first plot. Fed to the "
            "softmax unscaled, such large scores give one key almost all the weight: the row's entropy falls "
            "towards 0 bits, and the softmax's gradient, the norm of its Jacobian diag(p) − ppᵀ, falls towards 0, "
            "so training can hardly change the scores. Divided by √d_k, the scores keep a spread of 1 at every "
            "d_k, and entropy and gradient stay. The curves are medians over many random rows; the circles mark "
            "the slider's d_k. On the right, the loaded model's real attention for one query with its scaling "
            "multiplied by a factor in one layer: 0 makes the row uniform, √d_k removes the 1/√d_k.\n\n"
            "Why positions: 'Shuffle the source words' puts the sentence's tokens in a random order and runs the "
            "encoder again. With the positional encoding the attention changes. Without it (the NoPositions "
            "intervention) the shuffled map is the original one with its rows and columns reordered the same "
            "way: the largest difference is float rounding, about 1e-7. Attention alone sees a set of words, not "
            "a sequence."),
    }


def class_help() -> str:
    """The Class panel's help: a live class, from starting it to exporting the answers, in one paragraph."""
    return QCoreApplication.translate(
        "TabHelp",
        "A live class: File > Start a class serves this window's explorer on the local network (port 8338: open it "
        "on the firewall). Students open the join address in a browser, or scan the QR code, or use File > Join a "
        "class in transviz, and type the code and a nickname. They follow what the explorer shows (sentence, "
        "output, candidates, the head shown large, a lesson's caption). Each quiz question of the explorer or of a "
        "lesson slide is asked to the class too, in English and Chinese: the chart counts the answers without "
        "marking the right one; Reveal (here or in the explorer) marks it and tells each student whether they were "
        "right. Choose pre-test or post-test before a lesson's questions to compare the two; Export answers "
        "writes them as CSV, and nothing about the students is written anywhere else. Stop the class, or close "
        "the window, and the server stops listening.")
