// anywidget's model and view classes (each course widget written as an ES module: the matrix editor, ChoiceList).
// anywidget's front end is published as one AMD module, define(["@jupyter-widgets/base"], factory):
// capture-amd.js, imported just before it, keeps the factory, which is given the widgets base here.
import { anywidgetFactory } from './capture-amd.js';
import 'anywidget';
import * as widgetsBase from '@jupyter-widgets/base';

delete globalThis.define;

export const anywidget = anywidgetFactory.factory(widgetsBase);
