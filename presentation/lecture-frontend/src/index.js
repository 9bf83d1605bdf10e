// The lecture mode's front end (presentation/voila/templates/lecture). Voila runs the notebook in a kernel and sends
// the page with every output already drawn as HTML; this script makes its widgets live. It connects to that kernel,
// asks it for the state of every widget (one message, ipywidgets' "request_states"), and draws each widget where its
// output says "Loading widget...", with ipywidgets' own widget manager (manager.js). It loads no JupyterLab
// application: no plugins, no extensions fetched one by one, no notebook model; that is what makes a lecture page
// live sooner than Voila's own front end does.
import { KernelConnection } from '@jupyterlab/services/lib/kernel/default';
import { ServerConnection } from '@jupyterlab/services/lib/serverconnection';
import '@jupyter-widgets/base/css/index.css';
// Not controls/css/labvariables.css: it sets JupyterLab's light theme's colours on :root, and the page has its
// theme's own (the template links nbconvert's theme-light.css or theme-dark.css).
import '@jupyter-widgets/controls/css/widgets-base.css';
import { KernelWidgetManager } from './manager.js';
import { WIDGET_VIEW } from './output-widget.js';

/** The page's configuration (the kernel's id, the server's address), once the browser has read it: this script runs
 * in the page's head, before the body that holds it. */
const pageConfigRead = new Promise(resolve => {
  const read = () => {
    const config = document.getElementById('jupyter-config-data');
    // The element is complete once the browser has gone past it (or has read the whole page).
    return config !== null && (config.nextSibling !== null || document.readyState !== 'loading');
  };
  if (read()) {
    resolve();
    return;
  }
  const observer = new MutationObserver(() => {
    if (read()) {
      observer.disconnect();
      resolve();
    }
  });
  observer.observe(document, { childList: true, subtree: true });
  document.addEventListener('DOMContentLoaded', () => {
    observer.disconnect();
    resolve();
  }, { once: true });
});

/** The kernel Voila ran this page's notebook in, as the page's configuration names it. Read here, not through
 * JupyterLab's PageConfig, which keeps what it found the first time it was asked, before the browser had read it. */
function connectKernel() {
  const config = JSON.parse(document.getElementById('jupyter-config-data').textContent);
  const baseUrl = new URL(config.baseUrl || '/', window.location.href).href;
  const serverSettings = ServerConnection.makeSettings({
    baseUrl,
    wsUrl: baseUrl.replace(/^http/, 'ws'),
    token: config.token || '',
  });
  return new KernelConnection({
    model: { id: config.kernelId, name: 'python3' },
    serverSettings,
    handleComms: true,
  });
}

/** Each output that is a widget: its placeholder element and the id of the model it shows. */
function widgetOutputs(root) {
  return [...root.querySelectorAll(`script[type="${WIDGET_VIEW}"]`)].map(script => ({
    host: script.parentElement,
    modelId: JSON.parse(script.textContent).model_id,
  }));
}

/** Draw the widget of one output in place of its "Loading widget..." text; a widget that cannot be drawn says why,
 * where it would have been. */
async function showWidget(manager, { host, modelId }) {
  try {
    const model = await manager.get_model(modelId);
    const view = await manager.create_view(model);
    host.replaceChildren();
    manager.display_view(view, host);
  } catch (error) {
    console.error(`lecture page: widget ${modelId} could not be drawn`, error);
    host.replaceChildren(`Error displaying widget: ${error && error.message ? error.message : error}`);
  }
}

/** The widgets' states, asked of the kernel as soon as this script runs (in the page's head): the question is on its
 * way while the browser reads the rest of the page. */
async function loadWidgets() {
  await pageConfigRead;
  const kernel = connectKernel();
  const manager = new KernelWidgetManager(kernel);
  window.lectureWidgets = manager;  // for a look from the browser's console
  await manager.loadFromKernel();
  performance.mark('lecture:states');
  return manager;
}

const pageRead = new Promise(resolve => {
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', resolve, { once: true });
  } else {
    resolve();
  }
});

/** Draws every widget of the page, top of the page first (what the room sees as it opens), then says so with the
 * event "lecture-widgets-live" on window (the template typesets the formulas then). */
async function start() {
  performance.mark('lecture:start');
  const loading = loadWidgets();
  loading.catch(() => {});  // handled below, once the page is read
  await pageRead;
  const outputs = widgetOutputs(document);
  try {
    if (outputs.length > 0) {
      let manager;
      try {
        manager = await loading;
      } catch (error) {
        console.error('lecture page: the kernel did not send the widgets', error);
        outputs.forEach(({ host }) => host.replaceChildren(`Error displaying widget: the kernel did not answer (${error})`));
        return;
      }
      for (const output of outputs) {
        await showWidget(manager, output);
        if (output === outputs[0]) {
          performance.mark('lecture:first-widget');
        }
      }
    }
  } finally {
    performance.mark('lecture:all-widgets');
    window.lectureWidgetsLive = true;
    window.dispatchEvent(new Event('lecture-widgets-live'));
  }
}

start();
