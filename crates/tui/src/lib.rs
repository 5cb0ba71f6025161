//! Interactive timeline viewer. Not yet built; the engine emits the events it will show.
