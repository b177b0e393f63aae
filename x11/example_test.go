package x11_test

import (
	"fmt"
	"image"
	"log"

	"github.com/deskrun/deskrun/x11"
	"github.com/deskrun/deskrun/x11/keysym"
)

// Driving a desktop: connect to its X server, move the pointer and click,
// press a chord, type text, and capture the screen. It needs a running X
// server (Xvfb :99 here), so it is compiled but not run by go test.
func ExampleDial() {
	c, err := x11.Dial(":99")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	if err := c.Move(100, 200); err != nil {
		log.Fatal(err)
	}
	if err := c.Click(1, 2); err != nil { // double-click the left button
		log.Fatal(err)
	}
	keys, err := keysym.Parse("ctrl+a")
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Chord(keys); err != nil {
		log.Fatal(err)
	}
	if err := c.Type("héllo, wörld"); err != nil { // any Unicode text
		log.Fatal(err)
	}
	if err := c.Sync(); err != nil { // input queues until Sync, which checks it
		log.Fatal(err)
	}
	w, h := c.Size()
	img, err := c.Capture(image.Rect(0, 0, w, h))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(img.Bounds().Size())
}
