import HTTPTransport

/// The dashboard (docs/dashboard.md): the files beside this one, compiled into the binary
/// (`resources: [.embedInCode(…)]` in Package.swift), served on the control port at `/`. The
/// page works offline and calls only the control API.
///
/// The files hold no data, so they are served without the access token: the page loads,
/// then asks for the token when the API answers 401. Every file goes out with a policy that
/// lets the page run only its own scripts and talk only to this origin.
enum DashboardPage {
    /// One file of the page.
    struct File {
        let contentType: String
        let bytes: [UInt8]
    }

    /// The page's files by the path they are served at.
    static let files: [String: File] = [
        "/": File(contentType: "text/html; charset=utf-8", bytes: PackageResources.index_html),
        "/dashboard/dashboard.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.dashboard_js),
        "/dashboard/render.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.render_js),
        "/dashboard/dashboard.css": File(contentType: "text/css; charset=utf-8", bytes: PackageResources.dashboard_css),
    ]

    /// No inline script or style, no other origin, no framing; `require-trusted-types-for`
    /// makes the browser refuse markup assigned as text (`innerHTML`), so the page can only
    /// build elements and set their text.
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; "
        + "require-trusted-types-for 'script'; trusted-types 'none'"

    /// The file at `path` for a GET or HEAD, or nil when `path` is not one of the page's.
    static func response(method: String, path: String) -> HTTPResponse? {
        guard method == "GET" || method == "HEAD", let file = files[path] else { return nil }
        return HTTPResponse(status: 200, headers: [
            "content-type": file.contentType,
            "content-security-policy": contentSecurityPolicy,
            "x-content-type-options": "nosniff",
            "referrer-policy": "no-referrer",
            "cache-control": "no-cache",
        ], body: file.bytes)
    }
}
