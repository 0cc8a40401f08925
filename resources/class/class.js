// The student's page of a live class: joins with the code and a nickname, follows the teacher's
// view (sentence, tokens, candidate bars, one head's attention drawn from its numbers) and answers
// questions. Messages are described in transviz/live/protocol.py. Every text that comes from a
// person (a nickname, a token, a question) is set with textContent, never parsed as HTML.
"use strict";
(function () {
  const STRINGS = window.CLASS_STRINGS;
  const lang = pickLanguage();
  const $ = (id) => document.getElementById(id);

  const RECONNECTS = 30;          // tries after a drop (bounded), waiting longer each time ...
  const BACKOFF_MS = 500;         // ... from this ...
  const BACKOFF_MAX_MS = 5000;    // ... up to this
  const ANSWER_GAP_MS = 300;      // taps closer than this are sent as one answer (the server limits the rate)
  // Close codes (transviz/live/server.py) after which the page does not reconnect
  const FINAL_CLOSES = { 1001: "ended", 1008: "closed_abuse", 4000: null, 4001: "replaced", 4002: "removed" };

  let ws = null;
  let code = "";
  let nickname = "";
  let token = null;
  let joined = false;      // this connection has joined
  let everJoined = false;  // a drop now reconnects
  let failures = 0;
  let stopped = false;     // a final close: nothing more to do
  let refused = false;     // the last join was refused: the form is shown again
  let view = null;         // the teacher's view, kept to redraw the heatmap on resize
  let question = null;     // {id, kind, prompt, choices, label, choice, open}
  let result = null;       // {question, choice, answer, right}
  let wanted = null;       // the choice last tapped, until the server counts it
  let lastSent = 0;
  let sendTimer = null;

  function pickLanguage() {
    const list = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
    for (const item of list) {
      const low = String(item).toLowerCase();
      if (low.startsWith("zh")) return "zh";
      if (low.startsWith("en")) return "en";
    }
    return "en";
  }

  function t(key, ...args) {
    const table = STRINGS[lang] || STRINGS.en;
    const text = table[key] !== undefined ? table[key] : (STRINGS.en[key] !== undefined ? STRINGS.en[key] : key);
    return text.replace(/\{(\d)\}/g, (match, i) => (args[+i] === undefined ? match : String(args[+i])));
  }

  // A question's prompt or choice, or a caption: a plain string, or {"en": ..., "zh": ...}
  function local(text) {
    if (typeof text === "string") return text;
    if (text && typeof text === "object") return text[lang] || text.en || text.zh || "";
    return "";
  }

  function normalizeCode(text) {
    return String(text).replace(/[\s-]/g, "").toUpperCase().slice(0, 12);
  }

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // -- joining ------------------------------------------------------------------------------------
  function start() {
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
    document.title = t("title");
    for (const node of document.querySelectorAll("[data-text]")) node.textContent = t(node.dataset.text);
    let fragment = "";
    try {
      fragment = decodeURIComponent(location.hash.replace(/^#/, ""));
    } catch (e) {
      fragment = "";
    }
    $("code").value = normalizeCode(fragment);
    const saved = loadSession(normalizeCode(fragment));
    if (saved) {  // a reloaded page rejoins as the same student, answers kept
      code = normalizeCode(fragment);
      nickname = saved.nickname;
      token = saved.token;
      $("nickname").value = nickname;
      connect();
    } else if ($("code").value) {
      $("nickname").focus();
    }
    $("join-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const typedCode = normalizeCode($("code").value);
      const typedName = $("nickname").value.trim();
      if (!typedCode || !typedName) return;
      if (typedCode !== code || typedName !== nickname) token = null;
      code = typedCode;
      nickname = typedName;
      refused = false;
      stopped = false;
      failures = 0;
      connect();
    });
    window.addEventListener("resize", () => { if (view && view.head) drawHeatmap(view.head); });
  }

  function loadSession(forCode) {
    try {
      const saved = JSON.parse(sessionStorage.getItem("transviz-class:" + forCode) || "null");
      if (saved && typeof saved.nickname === "string" && typeof saved.token === "string") return saved;
    } catch (e) { /* storage off: join by hand */ }
    return null;
  }

  function saveSession() {
    try {
      sessionStorage.setItem("transviz-class:" + code, JSON.stringify({ nickname: nickname, token: token }));
    } catch (e) { /* storage off: a reload joins by hand */ }
  }

  function forgetSession() {
    try { sessionStorage.removeItem("transviz-class:" + code); } catch (e) { /* nothing kept */ }
  }

  function connect() {
    if (ws) { ws.onclose = null; ws.close(); }
    joined = false;
    $("join-button").disabled = true;
    if (!everJoined) $("join-message").textContent = t("joining");
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + "/ws");
    ws = socket;
    socket.onopen = () => {
      const message = { type: "join", code: code, nickname: nickname };
      if (token) message.token = token;
      socket.send(JSON.stringify(message));
    };
    socket.onmessage = (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch (e) { return; }
      if (message && typeof message.type === "string") receive(message);
    };
    socket.onclose = (event) => { if (ws === socket) closed(event.code); };
  }

  function closed(closeCode) {
    ws = null;
    joined = false;
    $("join-button").disabled = false;
    if (refused || stopped) return;
    if (closeCode in FINAL_CLOSES) {
      stopped = true;
      const key = FINAL_CLOSES[closeCode];
      if (key) showNotice(t(key));
      setLink(t("offline"), "off");
      if (closeCode === 4002) forgetSession();
      return;
    }
    if (!everJoined) {  // never in: the server is not reachable from here
      $("join-message").textContent = t("gave_up");
      return;
    }
    failures += 1;
    if (failures > RECONNECTS) {
      stopped = true;
      showNotice(t("gave_up"));
      setLink(t("offline"), "off");
      return;
    }
    setLink(t("reconnecting"), "wait");
    setTimeout(connect, Math.min(BACKOFF_MAX_MS, BACKOFF_MS * 2 ** (failures - 1)));
  }

  function receive(message) {
    switch (message.type) {
      case "welcome": return welcome(message);
      case "refused": return refusedJoin(message.reason);
      case "state": view = message.state; return renderView();
      case "question":
        question = Object.assign({}, message.question, { choice: message.choice, open: !!message.open });
        if (!result || result.question !== question.id) result = null;
        if (wanted !== null && (!question.open || wanted === question.choice)) wanted = null;
        renderQuestion();
        return flushAnswer();
      case "answered":
        if (question && question.id === message.question) {
          question.choice = message.choice;
          if (wanted === message.choice) wanted = null;
          renderQuestion();
        }
        return undefined;
      case "closed":
        if (question && question.id === message.question) { question.open = false; wanted = null; renderQuestion(); }
        return undefined;
      case "result":
        result = message;
        if (question && question.id === message.question) question.open = false;
        wanted = null;
        return renderQuestion();
      case "removed":
        stopped = true;
        forgetSession();
        showNotice(t("removed"));
        return undefined;
      case "error":
        if (message.reason === "too_fast" || message.reason === "question_closed") {
          $("question-message").textContent = t("error_" + message.reason);
        }
        return undefined;
      default:
        return undefined;
    }
  }

  function welcome(message) {
    token = message.token;
    nickname = message.nickname;
    joined = true;
    everJoined = true;
    failures = 0;
    saveSession();
    $("join").hidden = true;
    $("class").hidden = false;
    $("who").textContent = t("you_are", nickname);
    $("notice").hidden = true;
    setLink(t("connected"), "on");
    renderQuestion();
  }

  function refusedJoin(reason) {
    refused = true;
    const known = ["wrong_code", "nickname_taken", "bad_nickname", "full", "removed", "too_many_attempts"];
    const text = t(known.includes(reason) ? "refused_" + reason : "error_other");
    if (everJoined) {  // a rejoin refused (the class restarted, or the student was removed)
      stopped = true;
      showNotice(text);
      setLink(t("offline"), "off");
    } else {
      $("join-message").textContent = text;
    }
    token = null;
    forgetSession();
    if (ws) ws.close();
  }

  function showNotice(text) {
    $("notice").textContent = text;
    $("notice").hidden = false;
    if (!everJoined) $("join-message").textContent = text;
    for (const button of document.querySelectorAll(".choice")) button.disabled = true;
  }

  function setLink(text, kind) {
    $("link").textContent = text;
    $("link").className = "link " + kind;
  }

  // -- answering ----------------------------------------------------------------------------------
  function choose(index) {
    if (!question || !question.open || stopped) return;
    wanted = index;
    renderQuestion();
    flushAnswer();
  }

  function flushAnswer() {
    if (wanted === null || !question || !question.open || !ws || !joined || wanted === question.choice) return;
    const wait = lastSent + ANSWER_GAP_MS - Date.now();
    if (wait > 0) {
      if (sendTimer === null) sendTimer = setTimeout(() => { sendTimer = null; flushAnswer(); }, wait);
      return;
    }
    lastSent = Date.now();
    ws.send(JSON.stringify({ type: "answer", question: question.id, choice: wanted }));
  }

  function renderQuestion() {
    const box = $("question");
    if (!question) { box.hidden = true; return; }
    box.hidden = false;
    const label = $("question-label");
    label.hidden = !question.label;
    label.textContent = question.label ? t("label_" + question.label) : "";
    $("prompt").textContent = local(question.prompt);
    const choices = $("choices");
    if (choices.dataset.question !== question.id) {
      choices.replaceChildren();
      question.choices.forEach((choice, index) => {
        const button = element("button", "choice", local(choice));
        button.type = "button";
        button.dataset.index = String(index);
        button.addEventListener("click", () => choose(index));
        choices.appendChild(button);
      });
      choices.dataset.question = question.id;
    }
    const shown = wanted !== null ? wanted : question.choice;
    for (const button of choices.children) {
      const index = +button.dataset.index;
      button.disabled = !question.open || stopped;
      button.classList.toggle("chosen", index === shown);
      button.classList.toggle("pending", index === wanted && wanted !== question.choice);
      button.classList.toggle("answer", !!result && index === result.answer);
      button.classList.toggle("missed", !!result && index === result.choice && !result.right);
      button.setAttribute("aria-pressed", index === shown ? "true" : "false");
    }
    const message = $("question-message");
    message.className = "message";
    if (result && result.question === question.id) {
      const answerText = local(question.choices[result.answer]);
      message.textContent = result.right ? t("right") : t(result.choice === null ? "no_answer" : "wrong", answerText);
      message.classList.add(result.right ? "good" : "bad");
    } else if (!question.open) {
      message.textContent = t("closed");
    } else if (wanted !== null && wanted !== question.choice) {
      message.textContent = t("sending");
    } else if (question.choice !== null && question.choice !== undefined) {
      message.textContent = t("answer_sent");
    } else {
      message.textContent = t("choose");
    }
  }

  // -- the teacher's view -------------------------------------------------------------------------
  function tokens(container, list, emptyText) {
    container.replaceChildren();
    if (!list.length && emptyText) container.appendChild(element("span", "muted", emptyText));
    for (const token of list) container.appendChild(element("span", "token", token));
  }

  function renderView() {
    $("waiting").hidden = true;
    $("view").hidden = false;
    const caption = view.caption ? local(view.caption) : "";
    $("caption").hidden = !caption;
    $("caption").textContent = caption;
    $("model").textContent = view.model ? t("model", view.model) : "";
    tokens($("source"), view.source, "");
    tokens($("output"), view.output, t("nothing_yet"));
    $("step").textContent = t("step", view.step);
    const bars = $("candidates");
    bars.replaceChildren();
    $("candidates-card").hidden = !view.candidates.length;
    for (const [token, probability] of view.candidates) {
      const row = element("div", "bar-row");
      row.appendChild(element("span", "bar-token", token));
      const track = element("span", "bar-track");
      const fill = element("span", "bar-fill");
      fill.style.width = Math.max(0, Math.min(100, probability * 100)).toFixed(1) + "%";
      track.appendChild(fill);
      row.appendChild(track);
      row.appendChild(element("span", "bar-value", (probability * 100).toFixed(1) + "%"));
      bars.appendChild(row);
    }
    const head = view.head;
    $("head-card").hidden = !head;
    if (head) {
      const kind = t("kind_" + head.kind);
      $("head-title").textContent = head.head === null ? t("head_mean", kind, head.layer)
        : t("head_title", kind, head.layer, head.head);
      drawHeatmap(head);
    }
  }

  // White through blue to dark blue: the weights 0..1, drawn as they are (never rescaled, so two
  // heads compare truthfully).
  const STOPS = [[0, [255, 255, 255]], [0.5, [66, 146, 198]], [1, [8, 48, 107]]];

  function colour(value) {
    const v = Math.max(0, Math.min(1, value));
    for (let i = 1; i < STOPS.length; i++) {
      const [x1, c1] = STOPS[i];
      const [x0, c0] = STOPS[i - 1];
      if (v <= x1) {
        const f = (v - x0) / (x1 - x0);
        return "rgb(" + c0.map((c, k) => Math.round(c + f * (c1[k] - c))).join(",") + ")";
      }
    }
    return "rgb(8,48,107)";
  }

  function fit(ctx, text, width) {
    if (ctx.measureText(text).width <= width) return text;
    let cut = text;
    while (cut.length > 1 && ctx.measureText(cut + "…").width > width) cut = cut.slice(0, -1);
    return cut + "…";
  }

  function drawHeatmap(head) {
    const canvas = $("heatmap");
    const available = Math.max(200, canvas.parentElement.clientWidth);
    const ctx = canvas.getContext("2d");
    const rows = head.rows.length;
    const cols = head.cols.length;
    const font = "13px system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans CJK SC', 'Microsoft YaHei', sans-serif";
    ctx.font = font;
    const widest = (labels) => labels.reduce((w, label) => Math.max(w, ctx.measureText(label).width), 0);
    const rowWidth = Math.min(widest(head.rows), available * 0.35) + 10;
    const colHeight = Math.min(widest(head.cols), 110) + 10;
    const cell = Math.max(6, Math.min(56, Math.floor((available - rowWidth - 4) / Math.max(1, cols))));
    const width = rowWidth + cell * cols + 4;
    const height = colHeight + cell * rows + 4;
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
    canvas.dataset.left = String(rowWidth);  // where the cells start, and their size (CSS pixels)
    canvas.dataset.top = String(colHeight);
    canvas.dataset.cell = String(cell);
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", t("heatmap_label", rows, cols));
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = font;
    ctx.textBaseline = "middle";
    ctx.fillStyle = "#222";
    ctx.textAlign = "right";
    head.rows.forEach((label, r) => {
      ctx.fillText(fit(ctx, label, rowWidth - 10), rowWidth - 6, colHeight + cell * (r + 0.5));
    });
    ctx.textAlign = "left";
    head.cols.forEach((label, c) => {  // column labels read upwards
      ctx.save();
      ctx.translate(rowWidth + cell * (c + 0.5), colHeight - 6);
      ctx.rotate(-Math.PI / 2);
      ctx.fillText(fit(ctx, label, colHeight - 10), 0, 0);
      ctx.restore();
    });
    const values = cell >= 36;
    ctx.textAlign = "center";
    ctx.font = "11px system-ui, sans-serif";
    head.weights.forEach((row, r) => {
      row.forEach((weight, c) => {
        const x = rowWidth + cell * c;
        const y = colHeight + cell * r;
        ctx.fillStyle = colour(weight);
        ctx.fillRect(x, y, cell, cell);
        if (values) {
          ctx.fillStyle = weight > 0.55 ? "#fff" : "#222";
          ctx.fillText(weight.toFixed(2).replace(/^0/, ""), x + cell / 2, y + cell / 2);
        }
      });
    });
    ctx.strokeStyle = "#bbb";
    ctx.strokeRect(rowWidth + 0.5, colHeight + 0.5, cell * cols, cell * rows);
  }

  start();
})();
