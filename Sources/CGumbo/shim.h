// gumbo, Google's HTML5 parser: `thumbgen site` finds the <img> elements of a built site's
// pages with it. Only Site/HTMLScan.swift imports this module. gumbo points every element's
// original tag and every attribute's original name and value into the caller's buffer, which
// is what lets a page be spliced byte for byte rather than serialised from a tree.
#include <gumbo.h>

/// Parses `length` bytes of UTF-8 HTML as a browser would build its tree, keeping no parse
/// errors (they are not used, and a broken page would grow the list without bound). Free
/// the result with `tg_gumbo_free`.
static inline GumboOutput *tg_gumbo_parse(const char *html, size_t length) {
    GumboOptions options = kGumboDefaultOptions;
    options.max_errors = 0;
    return gumbo_parse_with_options(&options, html, length);
}

/// Frees what `tg_gumbo_parse` made.
static inline void tg_gumbo_free(GumboOutput *output) {
    gumbo_destroy_output(&kGumboDefaultOptions, output);
}

/// The element of a node of type GUMBO_NODE_ELEMENT or GUMBO_NODE_TEMPLATE; NULL otherwise.
static inline GumboElement *tg_gumbo_element(GumboNode *node) {
    if (node->type != GUMBO_NODE_ELEMENT && node->type != GUMBO_NODE_TEMPLATE) return NULL;
    return &node->v.element;
}

/// The children of a document or element node; NULL for text, comments and the like.
static inline GumboVector *tg_gumbo_children(GumboNode *node) {
    if (node->type == GUMBO_NODE_DOCUMENT) return &node->v.document.children;
    GumboElement *element = tg_gumbo_element(node);
    return element ? &element->children : NULL;
}
