// The widget manager of the lecture page: ipywidgets' own base manager (the models, their state and their comms, as
// JupyterLab's manager keeps them), connected to the kernel Voila ran the notebook in. It is not ipywidgets' HTML
// manager: that one brings JupyterLab's output area and renderers (a quarter of the script) for the Output widget,
// which the page draws with outputs.js instead.
import * as widgetsBase from '@jupyter-widgets/base';
import { ManagerBase } from '@jupyter-widgets/base-manager';
import * as widgetsControls from '@jupyter-widgets/controls';
import { MessageLoop } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import { anywidget } from './anywidget.js';
import { latexTypesetter } from './math.js';
import * as widgetsOutput from './output-widget.js';

/** The widget modules a lecture page can draw, by name, with the oldest major version of each (ipywidgets 8's). */
const WIDGET_MODULES = {
  '@jupyter-widgets/base': { classes: widgetsBase, minMajor: 2 },
  '@jupyter-widgets/controls': { classes: widgetsControls, minMajor: 2 },
  '@jupyter-widgets/output': { classes: widgetsOutput, minMajor: 1 },
  anywidget: { classes: anywidget, minMajor: 0 },
};

export class KernelWidgetManager extends ManagerBase {
  /** @param kernel a kernel connection of @jupyterlab/services */
  constructor(kernel) {
    super();
    this.kernel = kernel;
    // ipywidgets hands each description, label and HTMLMath to this typesetter (JupyterLab's manager has one too).
    this._rendermime = { latexTypesetter };
    this._views = new Set();
    // Widgets the kernel makes after the page has loaded (in a callback) arrive as comm openings.
    kernel.registerCommTarget(this.comm_target_name, async (comm, msg) => {
      await this.handle_comm_open(new widgetsBase.shims.services.Comm(comm), msg);
    });
    // Lumino's layouts (the boxes of widgets) measure themselves again when the window changes size.
    window.addEventListener('resize', () => {
      this._views.forEach(view => MessageLoop.postMessage(view.luminoWidget, Widget.ResizeMessage.UnknownSize));
    });
  }

  /** The class of a model or view, from the modules the page has. */
  async loadClass(className, moduleName, moduleVersion) {
    const module = WIDGET_MODULES[moduleName];
    const major = Number(String(moduleVersion).replace(/^[^0-9]*/, '').split('.')[0]);
    if (module === undefined || major < module.minMajor) {
      throw new Error(`the lecture page has no widget module ${moduleName}@${moduleVersion}`);
    }
    if (!(className in module.classes)) {
      throw new Error(`no class ${className} in ${moduleName}@${moduleVersion}`);
    }
    return module.classes[className];
  }

  async _create_comm(targetName, modelId, data, metadata, buffers) {
    const comm = this.kernel.createComm(targetName, modelId);
    if (data || metadata) {
      comm.open(data, metadata, buffers);
    }
    return new widgetsBase.shims.services.Comm(comm);
  }

  async _get_comm_info() {
    const reply = await this.kernel.requestCommInfo({ target_name: this.comm_target_name });
    return reply.content.status === 'ok' ? reply.content.comms : {};
  }

  /** Every widget's state, from the kernel, in one message (ipywidgets' request_states). */
  loadFromKernel() {
    return this._loadFromKernel();
  }

  /** Draws ``view`` in ``host`` (index.js shows why, there, when a widget cannot be made). */
  display_view(view, host) {
    Widget.attach(view.luminoWidget, host);
    this._views.add(view);
    view.once('remove', () => this._views.delete(view));
  }
}
