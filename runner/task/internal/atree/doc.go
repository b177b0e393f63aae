// Package atree queries the desktop's accessibility tree in OSWorld's XML
// (agentd's GET /v1/accessibility) as OSWorld does with lxml: XPath with
// the namespace prefixes of OSWorld's XML, and OSWorld's CSS selectors
// (type selectors, namespaced attribute selectors such as [attr|id=x],
// the =, *=, ^=, $=, ~= operators, and the descendant, child and sibling
// combinators) turned into XPath, as lxml's CSSSelector does, rather than
// matched by an HTML selector library, which knows no namespaced
// attributes.
//
// XPath goes through github.com/antchfx/xmlquery and antchfx/xpath, the
// maintained pure-Go XML DOM and XPath 1.0 engine. The package sits below
// the metric that checks the tree (check_accessibility_tree) and the
// getter and guest operation that read a terminal from it.
package atree
