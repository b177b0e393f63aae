// pdftext.js, run by `mutool run pdftext.js FILE`: the text of each page
// of FILE as PyMuPDF 1.21's page.get_text() returns it, one JSON string a
// page on a line of its own.
//
// PyMuPDF (fitz.i, helper-stext.i at tag 1.21.1) makes the page's text
// with MuPDF's structured-text device, the flags preserve-whitespace,
// preserve-ligatures and mediabox-clip, on the page with its /Rotate
// set to 0 (get_textpage), and prints it with JM_print_stext_page_as_text:
// block after block, line after line, the characters whose bounding box
// lies wholly inside the page, each line ended by a newline unless it
// wrote nothing or its last character is one. MuPDF's own text output
// (mutool draw -F txt) differs: it adds a blank line after each block,
// keeps characters the page's edge cuts, and without those flags turns
// ligatures into letters and other spaces into U+0020.
//
// Not reproduced: PyMuPDF recomputes a character's box from the font's
// ascender and descender when they add up to less than 1 (JM_char_quad);
// the box here is MuPDF's, which only matters for such a font's
// characters at the very edge of the page.

var doc = new Document(scriptArgs[0]);

// rotation is PyMuPDF's page.rotation: the inheritable /Rotate as an int,
// 0 unless it is a multiple of 90 (JM_page_rotation, JM_norm_rotation).
function rotation(obj) {
	for (var depth = 0; obj && depth < 64; depth++) {
		var v = obj.get("Rotate");
		if (v && !v.isNull()) {
			var r = v.isNumber() ? v.valueOf() : 0;
			r = Math.floor(r) === r ? r : (r < 0 ? Math.ceil(r + 0.5) : Math.floor(r + 0.5));
			while (r < 0) r += 360;
			while (r >= 360) r -= 360;
			return r % 90 ? 0 : r;
		}
		obj = obj.get("Parent");
		if (obj && obj.isNull()) obj = null;
	}
	return 0;
}

var n = doc.countPages();
for (var i = 0; i < n; i++) {
	var page = doc.loadPage(i);
	if (doc.isPDF()) {
		var obj = doc.findPage(i);
		if (rotation(obj) !== 0) obj.put("Rotate", 0);
	}
	var box = page.bound();
	var text = page.toStructuredText("preserve-whitespace,preserve-ligatures");
	var valid = box[0] <= box[2] && box[1] <= box[3];
	var out = [], line = [], last = "", vertical = false;
	text.walk({
		beginLine: function (bbox, wmode) { line = []; last = ""; vertical = wmode; },
		onChar: function (c, origin, font, size, q) {
			// JM_char_bbox: the quad's bounding box, at least size high
			// in vertical writing; fz_contains_rect
			var x0 = Math.min(q[0], q[2], q[4], q[6]), x1 = Math.max(q[0], q[2], q[4], q[6]);
			var y0 = Math.min(q[1], q[3], q[5], q[7]), y1 = Math.max(q[1], q[3], q[5], q[7]);
			if (vertical && y1 < y0 + size) y0 = y1 - size;
			if (valid && x0 >= box[0] && y0 >= box[1] && x1 <= box[2] && y1 <= box[3]) {
				// a NUL character is written as a byte but ends no line
				line.push(c === "" ? "\0" : c);
				last = c;
			}
		},
		endLine: function () {
			if (last !== "" && last !== "\n") line.push("\n");
			out.push(line.join(""));
		},
	});
	print(JSON.stringify(out.join("")));
}
