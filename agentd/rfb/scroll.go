package rfb

import (
	"bytes"
	"hash/maphash"
	"image"
	"slices"
)

// scrollMinRows is the least height a vertical shift must cover for a
// CopyRect to be sent: below it the changed tiles are cheap enough.
const scrollMinRows = Tile

// Scroll looks for a vertical shift between the frame the viewer has (a)
// and the new one (b) within the changed rectangles: a band of whole
// Tile-wide columns whose rows in b are rows of a moved by dy. It
// returns the destination rectangle in b (its source is dst moved by
// -dy; every pixel of it was compared with its source) and ok when such
// a band of at least scrollMinRows rows exists.
func Scroll(a, b *image.RGBA, changed []image.Rectangle) (dst image.Rectangle, dy int, ok bool) {
	if a.Bounds() != b.Bounds() || len(changed) == 0 {
		return
	}
	box := changed[0]
	for _, r := range changed[1:] {
		box = box.Union(r)
	}
	if box.Dy() < 2*scrollMinRows || box.Dx() < Tile {
		return
	}
	seed := maphash.MakeSeed()
	cols := (box.Dx() + Tile - 1) / Tile
	h := box.Dy()
	colX := func(c int) (int, int) {
		x0 := box.Min.X + c*Tile
		return x0, min(x0+Tile, box.Max.X)
	}
	// Row hashes of a few columns across the box, in a and in b: they
	// vote for a shift with their rows that occur once in a.
	var voters []int
	for _, c := range []int{cols / 4, cols / 2, cols * 3 / 4} {
		if !slices.Contains(voters, c) {
			voters = append(voters, c)
		}
	}
	ha := make([][]uint64, len(voters))
	hb := make([][]uint64, len(voters))
	votes := map[int]int{}
	for i, c := range voters {
		x0, x1 := colX(c)
		ha[i], hb[i] = make([]uint64, h), make([]uint64, h)
		where := make(map[uint64]int, h)
		for y := range h {
			p, q := a.PixOffset(x0, box.Min.Y+y), a.PixOffset(x1, box.Min.Y+y)
			ha[i][y] = maphash.Bytes(seed, a.Pix[p:q])
			hb[i][y] = maphash.Bytes(seed, b.Pix[p:q])
			if _, dup := where[ha[i][y]]; dup {
				where[ha[i][y]] = -1
			} else {
				where[ha[i][y]] = y
			}
		}
		for y := range h {
			if hb[i][y] == ha[i][y] {
				continue
			}
			if ya, found := where[hb[i][y]]; found && ya >= 0 {
				votes[y-ya]++
			}
		}
	}
	best, most := 0, 0
	for d, v := range votes {
		if d != 0 && (v > most || v == most && abs(d) < abs(best)) {
			best, most = d, v
		}
	}
	if most < scrollMinRows/4 || abs(best) >= h-scrollMinRows {
		return
	}
	dy = best
	// The voting column with the longest run of rows that moved by dy,
	// then the columns either side whose rows in that run all moved too.
	y0, y1, at := 0, 0, 0
	for i := range voters {
		for y := 0; y < h; {
			if ya := y - dy; ya < 0 || ya >= h || hb[i][y] != ha[i][ya] {
				y++
				continue
			}
			e := y + 1
			for e < h && e-dy >= 0 && e-dy < h && hb[i][e] == ha[i][e-dy] {
				e++
			}
			if e-y > y1-y0 {
				y0, y1, at = y, e, i
			}
			y = e
		}
	}
	moved := func(c int) bool {
		x0, x1 := colX(c)
		for y := box.Min.Y + y0; y < box.Min.Y+y1; y++ {
			p, q := b.PixOffset(x0, y), b.PixOffset(x1, y)
			r := a.PixOffset(x0, y-dy)
			if !bytes.Equal(b.Pix[p:q], a.Pix[r:r+q-p]) {
				return false
			}
		}
		return true
	}
	// the voting column's rows matched by hash: compared byte by byte
	// here, so that every pixel of the band returned is checked
	c0, c1 := voters[at], voters[at]+1
	if y1-y0 < scrollMinRows || !moved(c0) {
		return
	}
	for c0 > 0 && moved(c0-1) {
		c0--
	}
	for c1 < cols && moved(c1) {
		c1++
	}
	dst = image.Rect(box.Min.X+c0*Tile, box.Min.Y+y0, min(box.Min.X+c1*Tile, box.Max.X), box.Min.Y+y1)
	return dst, dy, true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// copyRows moves dst's pixels from dst shifted by -dy within img, as a
// viewer applies a CopyRect.
func copyRows(img *image.RGBA, dst image.Rectangle, dy int) {
	move := func(y int) {
		i, j := img.PixOffset(dst.Min.X, y), img.PixOffset(dst.Max.X, y)
		k := img.PixOffset(dst.Min.X, y-dy)
		copy(img.Pix[i:j], img.Pix[k:k+j-i])
	}
	if dy > 0 { // moving down: from the bottom up
		for y := dst.Max.Y - 1; y >= dst.Min.Y; y-- {
			move(y)
		}
		return
	}
	for y := dst.Min.Y; y < dst.Max.Y; y++ {
		move(y)
	}
}
