// ipywidgets' Output widget on the lecture page: its outputs (the course's folds hold what a cell printed and
// displayed until the room has predicted: text, tables, figures and widgets) drawn as JupyterLab draws them, with
// JupyterLab's classes, so the page's style sheets apply. The course's outputs are its own, trusted as the notebook
// is; an output's scripts are not run.
import { JupyterLuminoPanelWidget } from '@jupyter-widgets/base';
import * as outputBase from '@jupyter-widgets/output';
import { Panel, Widget } from '@lumino/widgets';
import { latexTypesetter } from './math.js';

export const WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json';
// What an output is drawn as, the first of its types found, in JupyterLab's order.
const PREFERRED = [WIDGET_VIEW, 'text/html', 'image/svg+xml', 'image/png', 'image/jpeg', 'text/markdown',
  'text/latex', 'text/plain'];
// The escape sequences of a coloured terminal (tracebacks): left out of the text.
const ANSI_ESCAPE = /\x1b\[[0-9;]*[A-Za-z]/g;

function textOf(value) {
  return Array.isArray(value) ? value.join('') : String(value ?? '');
}

/** An output's box, with JupyterLab's classes, holding ``node``. */
function outputBox(classes, mimeType, node) {
  const box = document.createElement('div');
  box.className = `${classes} jp-OutputArea-output`;
  box.dataset.mimeType = mimeType;
  if (node !== undefined) {
    box.appendChild(node);
  }
  return new Widget({ node: box });
}

function preformatted(text) {
  const pre = document.createElement('pre');
  pre.textContent = text.replace(ANSI_ESCAPE, '');
  return pre;
}

/** One output as a Lumino widget: a widget's view for a widget, else its best type drawn. */
async function drawOutput(output, parentView) {
  if (output.output_type === 'stream') {
    const mimeType = `application/vnd.jupyter.${output.name === 'stderr' ? 'stderr' : 'stdout'}`;
    return outputBox('jp-RenderedText', mimeType, preformatted(textOf(output.text)));
  }
  if (output.output_type === 'error') {
    return outputBox('jp-RenderedText', 'application/vnd.jupyter.stderr',
      preformatted(textOf(output.traceback && output.traceback.length ? output.traceback.join('\n')
        : `${output.ename}: ${output.evalue}`)));
  }
  const data = output.data || {};
  const mimeType = PREFERRED.find(type => type in data);
  if (mimeType === WIDGET_VIEW) {
    const manager = parentView.model.widget_manager;
    const model = await manager.get_model(data[WIDGET_VIEW].model_id);
    const view = await manager.create_view(model, { parent: parentView });
    const box = new Panel();
    box.addClass('jp-OutputArea-output');
    box.addWidget(view.luminoWidget);
    return box;
  }
  if (mimeType === 'text/html' || mimeType === 'image/svg+xml') {
    const classes = mimeType === 'text/html' ? 'jp-RenderedHTMLCommon jp-RenderedHTML' : 'jp-RenderedSVG';
    const drawn = outputBox(classes, mimeType);
    drawn.node.innerHTML = textOf(data[mimeType]);
    latexTypesetter.typeset(drawn.node);
    return drawn;
  }
  if (mimeType === 'image/png' || mimeType === 'image/jpeg') {
    const image = document.createElement('img');
    image.src = `data:${mimeType};base64,${textOf(data[mimeType]).replace(/\n/g, '')}`;
    const alt = output.metadata && output.metadata.alt;
    image.alt = alt || textOf(data['text/plain']);
    return outputBox('jp-RenderedImage', mimeType, image);
  }
  if (mimeType === 'text/latex') {
    const drawn = outputBox('jp-RenderedLatex', mimeType);
    drawn.node.textContent = textOf(data[mimeType]);
    latexTypesetter.typeset(drawn.node);
    return drawn;
  }
  // Markdown and plain text alike, as text (the course displays no markdown in an Output widget).
  return outputBox('jp-RenderedText', mimeType || 'text/plain', preformatted(textOf(data[mimeType])));
}

export class OutputModel extends outputBase.OutputModel {
  defaults() {
    return { ...super.defaults(), msg_id: '', outputs: [] };
  }
}

export class OutputView extends outputBase.OutputView {
  // A Lumino panel as the view's element (as ipywidgets' own Output views have), so that a widget among the outputs
  // is a Lumino child of it and hears when it is attached, shown or resized.
  _createElement() {
    this.luminoWidget = new JupyterLuminoPanelWidget({ view: this });
    return this.luminoWidget.node;
  }

  _setElement(el) {
    if (this.el || el !== this.luminoWidget.node) {
      throw new Error('Cannot reset the DOM element.');
    }
    this.el = this.luminoWidget.node;
  }

  render() {
    super.render();
    this.luminoWidget.addClass('jupyter-widgets');
    this.luminoWidget.addClass('widget-output');
    this.area = new Panel();
    this.area.addClass('jp-OutputArea');
    this.luminoWidget.addWidget(this.area);
    this.listenTo(this.model, 'change:outputs', this.drawOutputs);
    this.drawOutputs();
    this.update();
  }

  /** The outputs as the model holds them now; a later change of them stops an earlier drawing. */
  async drawOutputs() {
    const drawing = {};
    this.drawing = drawing;
    for (const child of [...this.area.widgets]) {
      child.dispose();
    }
    for (const output of this.model.get('outputs')) {
      const child = new Panel();
      child.addClass('jp-OutputArea-child');
      if (output.output_type === 'execute_result') {
        child.addClass('jp-OutputArea-executeResult');
      }
      let drawn;
      try {
        drawn = await drawOutput(output, this);
      } catch (error) {
        console.error('lecture page: an output of an Output widget could not be drawn', error);
        drawn = outputBox('jp-RenderedText', 'application/vnd.jupyter.stderr',
          preformatted(`Error displaying output: ${error && error.message ? error.message : error}`));
      }
      if (this.drawing !== drawing) {
        drawn.dispose();
        return;
      }
      child.addWidget(drawn);
      this.area.addWidget(child);
    }
  }
}
