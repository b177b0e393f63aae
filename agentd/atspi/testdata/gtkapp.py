#!/usr/bin/python3
"""A small GTK 3 window the accessibility tests read and drive: a button
that changes a label, a combo box, a text entry and a slider. Every change
is printed on stdout so a test can see its effect."""
import sys
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk, GLib

title = sys.argv[1] if len(sys.argv) > 1 else "Deskrun Test"
win = Gtk.Window(title=title)
win.set_default_size(420, 260)
win.move(40, 40)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
win.add(box)
label = Gtk.Label(label="Waiting")
box.add(label)
button = Gtk.Button(label="Press Me")
def pressed(_):
    label.set_text("Pressed")
    print("pressed", flush=True)
button.connect("clicked", pressed)
box.add(button)
combo = Gtk.ComboBoxText()
for c in ("Red", "Green", "Blue"):
    combo.append_text(c)
combo.set_active(0)
combo.connect("changed", lambda c: print("combo", c.get_active_text(), flush=True))
box.add(combo)
entry = Gtk.Entry()
entry.set_text("hello")
entry.connect("changed", lambda e: print("entry", e.get_text(), flush=True))
box.add(entry)
scale = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1)
scale.set_value(10)
scale.connect("value-changed", lambda s: print("scale", s.get_value(), flush=True))
box.add(scale)
win.connect("destroy", Gtk.main_quit)
win.show_all()
print("ready", flush=True)
Gtk.main()
