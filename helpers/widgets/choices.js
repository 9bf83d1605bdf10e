// A list of options with typeset labels (helpers/widgets/choices.py): one radio group for one widget model.
//
// The kernel owns the state: the labels as HTML (their math typeset by the kernel), the question, the chosen place
// (`index`, -1 for none) and whether the list is disabled. The view draws native radio inputs that share one name,
// each inside the <label> holding its text, so the browser gives the group its keyboard (one tab stop; the arrow
// keys move between the options and choose) and each option its accessible name (its label's text). A choice is
// sent back as the new `index`.

let groups = 0;

function element(tag, className) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  return e;
}

function render({ model, el }) {
  groups += 1;
  const name = `course-choices-${groups}-${Math.random().toString(36).slice(2, 8)}`;
  const root = element("div", "course-choices");
  const question = element("div", "course-choices-question");
  question.id = `${name}-question`;
  const options = element("div", "course-choices-options");
  options.setAttribute("role", "radiogroup");
  root.append(question, options);
  el.append(root);
  // The arrow keys and Space belong to the radio group: JupyterLab's notebook shortcuts (ArrowDown: the next cell)
  // would otherwise take them before the browser moves the choice.
  root.setAttribute("data-lm-suppress-shortcuts", "true");
  options.addEventListener("keydown", (event) => {
    if (["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", " "].includes(event.key)) event.stopPropagation();
  });
  let inputs = [];

  function drawOptions() {
    options.replaceChildren();
    inputs = model.get("labels").map((label, k) => {
      const option = element("label", "course-choices-option");
      const input = element("input");
      input.type = "radio";
      input.name = name;
      input.value = String(k);
      const text = element("span", "course-choices-text");
      text.innerHTML = label; // HTML the kernel wrote (math_html escapes the option's text)
      input.addEventListener("change", () => {
        if (input.checked && model.get("index") !== k) {
          model.set("index", k);
          model.save_changes();
        }
      });
      option.append(input, text);
      options.append(option);
      return input;
    });
    drawState();
  }

  function drawQuestion() {
    question.innerHTML = model.get("description_html");
    question.hidden = !model.get("description");
    if (model.get("description")) {
      options.setAttribute("aria-labelledby", question.id);
      options.removeAttribute("aria-label");
    } else {
      options.removeAttribute("aria-labelledby");
      options.setAttribute("aria-label", "options");
    }
  }

  function drawState() {
    const index = model.get("index");
    const disabled = model.get("disabled");
    inputs.forEach((input, k) => {
      input.checked = k === index;
      input.parentElement.classList.toggle("course-choices-chosen", k === index);
      input.disabled = disabled;
    });
    root.className = `course-choices course-choices-${model.get("look")}` +
      (model.get("large") ? " course-choices-large" : "") + (disabled ? " course-choices-disabled" : "");
  }

  drawQuestion();
  drawOptions();
  model.on("change:labels", drawOptions);
  model.on("change:description_html", drawQuestion);
  model.on("change:description", drawQuestion);
  model.on("change:index", drawState);
  model.on("change:disabled", drawState);
  model.on("change:look", drawState);
  model.on("change:large", drawState);
}

export default { render };
