// MathJax for the widgets' text: the page's MathJax script (loaded by the lecture template once the widgets are
// live) comes after this one.

let mathJaxStarted = null;

/** MathJax's startup, once the page's MathJax script has run (asked for only when a widget's text holds TeX). */
function mathJaxReady() {
  mathJaxStarted ??= new Promise(resolve => {
    (function check() {
      const startup = window.MathJax && window.MathJax.startup;
      if (startup && startup.promise) {
        resolve(startup.promise);
      } else {
        setTimeout(check, 50);
      }
    })();
  });
  return mathJaxStarted;
}

/** Typesets the math of a widget's description, label or HTML, as JupyterLab does (its widget manager hands every
 * such text to MathJax). Without one, ipywidgets calls MathJax 2's API, which MathJax 3 does not have. Text without a
 * TeX delimiter is left alone: the course's widgets typeset their math in the kernel, as HTML. */
export const latexTypesetter = {
  typeset(element) {
    if (!/\$|\\\(|\\\[/.test(element.textContent)) {
      return;
    }
    mathJaxReady().then(() => window.MathJax.typesetPromise([element])).catch(error => {
      console.error('lecture page: a widget\'s math could not be typeset', error);
    });
  },
};
