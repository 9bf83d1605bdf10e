"""Small live demos that belong to one notebook each (the general explorers live in helpers.widgets)."""
