// Debian's libhttp-parser (2.9): the strict, mature HTTP/1.1 parser from Node.js.
#ifndef C_HTTP_PARSER_SHIM_H
#define C_HTTP_PARSER_SHIM_H

#include <http_parser.h>

static inline enum http_errno c_http_parser_errno(const http_parser *parser) {
    return HTTP_PARSER_ERRNO(parser);
}

#endif
