// anywidget's front end is published as one AMD module: define(["@jupyter-widgets/base"], factory). Imported
// right after this file (imports run in order), it hands its factory to this stand-in for an AMD loader; the page
// then builds anywidget's model and view classes from the widgets base it already has. The stand-in has no `amd`
// property, so libraries that look for a real AMD loader (UMD bundles) do not take it for one.
export const anywidgetFactory = { factory: null };

globalThis.define = (deps, factory) => {
  anywidgetFactory.factory = factory;
};
