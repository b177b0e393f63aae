// Package office reads the documents OSWorld's office metrics look at:
// OOXML (xlsx, docx, pptx) and ODF (odt) packages, with what openpyxl,
// python-docx, python-pptx and pandas.read_excel would give the metrics
// (cells with their cached values and styles, charts and pivot tables,
// paragraphs and runs, slides and shapes, the read_excel frame with
// pandas' NA strings and type inference, openpyxl's refusals, and
// OSWorld's own read_cell_value on the raw XML).
//
// Every document is a zip of XML parts opened by one container
// ([Package]): each read is bounded (entries, bytes per part and per
// package, element depth and count) and checks the caller's context, so a
// corrupt or hostile file is an error, never a hang or a panic. Parts are
// parsed into a small element tree ([Node]); the readers look at a few
// dozen elements and attributes, which a tree walks more plainly than
// struct tags, and the standard library needs no dependency.
//
// It sits below the metrics (runner/task/metric) and the getters
// (runner/task) that read documents, and imports neither: a reader
// returns values and errors, a metric decides the score.
package office
