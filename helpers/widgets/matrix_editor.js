// The matrix editor's view: one <table> of <input>s for one widget model (helpers/matrix_editor.py).
//
// The kernel owns the state: the text of every cell (`cells`), the refused cells (`bad`), the labels, the title and
// the message. The view draws them and sends what the learner does as messages: a cell left with new text
// ({event: "edit", i, j, text}) and a button ({event: "button", name}). Nothing is parsed here: the kernel's one
// parser reads every cell, so the browser and `set_text` in code behave alike.
//
// Keyboard: Tab and Shift+Tab go through the cells row by row; the arrow keys move to the next cell up, down, left or
// right (left and right once the caret is at the start or the end of the text); Enter keeps the text and moves down
// (Shift+Enter up); Escape puts back the text the cell had.

const BUTTONS = [
  ["reset", "Reset", "back to the starting values"],
  ["random", "Random", "Randomize: small integers \u22122..2 (seeded)"],
  ["numpy", "numpy", "Copy as numpy: show this matrix as a numpy literal, to copy into code"],
];

function element(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function render({ model, el }) {
  const title = element("div", "matrix-editor-title");
  const heading = element("div", "matrix-editor-heading");
  const buttons = element("div", "matrix-editor-buttons");
  heading.append(title, buttons);
  const table = element("table", "matrix-editor-grid");
  const message = element("div", "matrix-editor-message");
  message.setAttribute("aria-live", "polite");
  const literal = element("textarea", "matrix-editor-literal");
  literal.readOnly = true;
  literal.setAttribute("aria-label", "the matrix as a numpy literal");
  el.append(heading, table, message, literal);

  for (const [name, text, tip] of BUTTONS) {
    const b = element("button", `matrix-editor-button matrix-editor-${name}`, text);
    b.type = "button";
    b.title = tip;
    b.addEventListener("click", () => model.send({ event: "button", name }));
    buttons.append(b);
  }

  let inputs = []; // inputs[i][j]
  let shape = "";

  const send = (input) => {
    // A cell left with new text: the kernel reads it (once per text, as a Text widget's change).
    if (input.value === input.dataset.sent) return;
    input.dataset.sent = input.value;
    model.send({ event: "edit", i: +input.dataset.i, j: +input.dataset.j, text: input.value });
  };

  const move = (input, di, dj) => {
    const i = +input.dataset.i + di, j = +input.dataset.j + dj;
    const next = inputs[i] && inputs[i][j];
    if (!next) return false;
    send(input);
    next.focus();
    next.select();
    return true;
  };

  const onKey = (event) => {
    const input = event.target;
    const atStart = input.selectionStart === 0 && input.selectionEnd === 0;
    const atEnd = input.selectionStart === input.value.length && input.selectionEnd === input.value.length;
    const all = input.selectionStart === 0 && input.selectionEnd === input.value.length;
    let moved = false;
    switch (event.key) {
      case "Enter":
        send(input);
        if (!move(input, event.shiftKey ? -1 : 1, 0)) input.select();
        moved = true;
        break;
      case "ArrowUp": moved = move(input, -1, 0); break;
      case "ArrowDown": moved = move(input, 1, 0); break;
      case "ArrowLeft": moved = (atStart || all) && move(input, 0, -1); break;
      case "ArrowRight": moved = (atEnd || all) && move(input, 0, 1); break;
      case "Escape":
        input.value = input.dataset.shown;
        input.dataset.sent = input.dataset.shown;
        input.select();
        moved = true;
        break;
      default:
        return;
    }
    if (moved) {
      event.preventDefault();
      event.stopPropagation(); // JupyterLab's own shortcuts (Escape leaves the cell's edit mode) stay out of it
    }
  };

  const build = () => {
    const rows = model.get("row_labels"), cols = model.get("col_labels");
    table.replaceChildren();
    const head = element("thead"), labels = element("tr");
    labels.append(element("td", "matrix-editor-corner"));
    cols.forEach((c, j) => {
      const th = element("th", "", c);
      th.scope = "col";
      th.title = c;
      th.dataset.col = j;
      labels.append(th);
    });
    head.append(labels);
    const body = element("tbody");
    inputs = rows.map((r, i) => {
      const tr = element("tr");
      tr.dataset.row = i;
      const th = element("th", "", r);
      th.scope = "row";
      th.title = r;
      tr.append(th);
      const row = cols.map((c, j) => {
        const td = element("td");
        td.dataset.col = j;
        const input = element("input");
        input.type = "text";
        input.spellcheck = false;
        input.autocomplete = "off";
        input.dataset.i = i;
        input.dataset.j = j;
        input.addEventListener("change", () => send(input));
        input.addEventListener("keydown", onKey);
        td.append(input);
        tr.append(td);
        return input;
      });
      body.append(tr);
      return row;
    });
    table.append(head, body);
    shape = `${rows.length}x${cols.length}`;
  };

  const names = () => {
    const name = model.get("name"), rows = model.get("row_labels"), cols = model.get("col_labels");
    inputs.forEach((row, i) => row.forEach((input, j) => {
      input.setAttribute("aria-label", `${name}, row ${rows[i]}, column ${cols[j]}`);
    }));
  };

  const fill = () => {
    const cells = model.get("cells");
    const bad = new Map(model.get("bad").map(([i, j, why]) => [`${i},${j}`, why]));
    inputs.forEach((row, i) => row.forEach((input, j) => {
      const text = cells[i] !== undefined && cells[i][j] !== undefined ? cells[i][j] : "";
      // Text being typed stays: the kernel's news is about another cell (or the text this one was left with).
      const typing = document.activeElement === input && input.value !== input.dataset.shown;
      if (!typing && input.value !== text) input.value = text;
      input.dataset.shown = text;
      input.dataset.sent = text;
      const why = bad.get(`${i},${j}`);
      input.classList.toggle("matrix-editor-bad", why !== undefined);
      input.setAttribute("aria-invalid", why !== undefined ? "true" : "false");
      if (why !== undefined) input.title = why; else input.removeAttribute("title");
    }));
  };

  const look = () => {
    table.style.setProperty("--me-cell", `${model.get("cell_em")}em`);
    table.classList.toggle("matrix-editor-rotated", model.get("rotated"));
    buttons.hidden = !model.get("show_buttons");
  };

  const labels = () => {
    const rows = model.get("row_labels"), cols = model.get("col_labels");
    if (`${rows.length}x${cols.length}` !== shape) {
      build();
    } else {
      table.querySelectorAll("thead th").forEach((th, j) => { th.textContent = cols[j]; th.title = cols[j]; });
      table.querySelectorAll("tbody th").forEach((th, i) => { th.textContent = rows[i]; th.title = rows[i]; });
    }
    names();
    fill();
  };

  const text = () => {
    title.innerHTML = model.get("title_html");
    message.innerHTML = model.get("message_html");
    const lit = model.get("literal");
    literal.hidden = !lit;
    literal.value = lit;
    literal.rows = Math.min(12, lit.split("\n").length + 1);
    buttons.querySelector(".matrix-editor-numpy").textContent = lit ? "Hide numpy" : "numpy";
  };

  build();
  look();
  labels();
  text();
  const listeners = [["row_labels", labels], ["col_labels", labels], ["name", names], ["cells", fill], ["bad", fill],
                     ["cell_em", look], ["rotated", look], ["show_buttons", look], ["title_html", text],
                     ["message_html", text], ["literal", text]].map(([name, fn]) => [`change:${name}`, fn]);
  for (const [event, fn] of listeners) model.on(event, fn);
  return () => { for (const [event, fn] of listeners) model.off(event, fn); };
}

export default { render };
