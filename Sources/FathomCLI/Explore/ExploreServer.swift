import Fathom
import Foundation

/// `fathom explore`'s server: the page (embedded at build time, `ExplorerPage`) and the render
/// API, behind the checks of Documentation/Explorer.md, "Security": every request carries the
/// token printed with the URL; Host must name this server by an IP literal or `localhost` (no
/// DNS rebinding); a request from another origin is refused; bodies, sizes, iteration limits and
/// renders at once are bounded.
final class ExploreServer: @unchecked Sendable {
    /// The render settings (threads, backend) of the command line, which every render starts from.
    let base: (RenderSettings) throws -> RenderSettings
    /// The secret in the printed URL: 32 random bytes as hex.
    let token: String
    /// The largest image a request may ask for, and the highest iteration limit.
    static let maximumSide = 4096, maximumPixels = 3840 * 2160, maximumIterations = 100_000_000
    /// The largest request body (a location file).
    static let bodyLimit = 64 << 10

    private let lock = NSLock()
    /// Per client (the page's random id): its newest view's sequence number and the renders of
    /// older views still running, cancelled when a newer view arrives.
    private var clients: [String: (sequence: Int, controls: [Int: RenderControl])] = [:]
    /// One render at a time: each takes every thread.
    private let renders = DispatchSemaphore(value: 1)
    /// The port the server listens on (the Host check's), set once it listens.
    private var port: Int {
        lock.lock()
        defer { lock.unlock() }
        return listeningPort
    }
    private var listeningPort = 0
    func setPort(_ port: Int) {
        lock.lock()
        listeningPort = port
        lock.unlock()
    }

    init(base: @escaping (RenderSettings) throws -> RenderSettings) {
        var generator = SystemRandomNumberGenerator()
        token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        self.base = base
    }

    /// The headers every reply carries: nothing cached, sniffed, framed or referred (the URL holds the token).
    static let commonHeaders = [
        ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
    ]
    static let pageHeaders = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        )
    ]

    /// Answers one request.
    func handle(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        var reply = route(request)
        reply.headers = Self.commonHeaders + reply.headers
        return reply
    }

    private func route(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        if let refusal = refusal(request) { return refusal }
        let path = request.path
        switch (request.method, path) {
        case ("GET", "/"): return page("index.html", "text/html; charset=utf-8")
        case ("GET", "/explorer.js"): return page("explorer.js", "text/javascript; charset=utf-8")
        case ("GET", "/explorer.css"): return page("explorer.css", "text/css; charset=utf-8")
        case ("POST", "/api/render"): return render(request)
        case (_, "/"), (_, "/explorer.js"), (_, "/explorer.css"), (_, "/api/render"):
            return .text(405, "method not allowed")
        default: return .text(404, "not found")
        }
    }

    /// A file of the page; the HTML's links to the others carry the token (`__TOKEN__`).
    private func page(_ name: String, _ type: String) -> HTTPServer.Reply {
        guard let text = ExplorerPage.files[name] else { return .text(404, "not found") }
        let body = name.hasSuffix(".html") ? text.replacingOccurrences(of: "__TOKEN__", with: token) : text
        return HTTPServer.Reply(status: 200, contentType: type, body: Data(body.utf8), headers: Self.pageHeaders)
    }

    // MARK: Security

    /// Why `request` is refused (403, or 421 for a Host that is not this server), or nil.
    func refusal(_ request: HTTPServer.Request) -> HTTPServer.Reply? {
        guard let host = request.header("Host"), Self.isOwnHost(host, port: port) else {
            return .text(421, "this server answers only to its own address (IP literal or localhost and its port)")
        }
        if let origin = request.header("Origin"), origin != "http://" + host {
            return .text(403, "requests from another origin are refused")
        }
        if request.header("Sec-Fetch-Site") == "cross-site" {
            return .text(403, "cross-site requests are refused")
        }
        let given = request.header("X-Fathom-Token") ?? request.argument("token") ?? ""
        guard Self.constantTimeEqual(given, token) else {
            return .text(403, "a valid token is required (the one in the URL fathom explore printed)")
        }
        return nil
    }

    /// Whether `host` (a Host header) is `localhost` or an IP literal ([v6] in brackets), with `port`.
    static func isOwnHost(_ host: String, port: Int) -> Bool {
        let suffix = ":\(port)"
        guard host.hasSuffix(suffix) else { return false }
        let name = String(host.dropLast(suffix.count))
        if name == "localhost" { return true }
        if name.hasPrefix("[") && name.hasSuffix("]") { return isAddressLiteral(String(name.dropFirst().dropLast())) }
        return !name.contains(":") && isAddressLiteral(name)
    }

    /// Whether `text` is an IPv4 or IPv6 address literal.
    static func isAddressLiteral(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    // MARK: Rendering

    /// POST /api/render?width=W&height=H&client=ID&view=N[&format=npy]: renders the location
    /// file in the body at W x H as `fathom render --location FILE --size WxH` would (the same
    /// field, byte for byte) and answers the PNG (with the location in it) or the NumPy field.
    /// A render for an older view of the same client is cancelled when a newer one arrives,
    /// and answers 409.
    private func render(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        guard let width = request.argument("width").flatMap({ Int($0) }),
            let height = request.argument("height").flatMap({ Int($0) }),
            (1...Self.maximumSide).contains(width), (1...Self.maximumSide).contains(height),
            width * height <= Self.maximumPixels
        else {
            return .text(
                400,
                "width and height: whole numbers, each 1...\(Self.maximumSide), at most \(Self.maximumPixels) pixels")
        }
        let client = request.argument("client") ?? ""
        guard (1...64).contains(client.utf8.count), client.utf8.allSatisfy({ $0 < 128 }),
            let view = request.argument("view").flatMap({ Int($0) }), view >= 0
        else { return .text(400, "client (1 to 64 ASCII characters) and view (a whole number >= 0) are required") }
        let npy = request.argument("format") == "npy"
        var file: LocationFile
        do {
            file = try LocationFile.decodeJSON(request.body, path: "the request's location")
            _ = try file.location()
        } catch {
            return .text(400, "\(error)")
        }
        guard file.maxIterations <= Self.maximumIterations else {
            return .text(400, "maxIterations: at most \(Self.maximumIterations) in the explorer")
        }
        guard (file.supersample ?? 1) == 1 else {
            return .text(400, "supersample: the explorer renders 1 sample a pixel")
        }
        file.width = width
        file.height = height

        guard let control = begin(client: client, view: view) else { return .text(409, "superseded by a newer view") }
        defer { end(client: client, view: view) }
        renders.wait()
        defer { renders.signal() }
        if control.isCancelled { return .text(409, "superseded by a newer view") }
        do {
            let settings = try base(try file.renderSettings())
            let start = Date()
            let (result, png) = try ExploreServer.renderPNG(file, settings: settings, control: control)
            let seconds = String(format: "%.3f", Date().timeIntervalSince(start))
            let headers = [("X-Fathom-Seconds", seconds), ("X-Fathom-Path", result.report.path.rawValue)]
            if npy {
                return HTTPServer.Reply(
                    status: 200, contentType: "application/octet-stream", body: NPYWriter.data(result.field),
                    headers: headers)
            }
            return HTTPServer.Reply(status: 200, contentType: "image/png", body: png, headers: headers)
        } catch let error as RenderError where error == .cancelled {
            return .text(409, "superseded by a newer view")
        } catch {
            return .text(422, "\(error)")
        }
    }

    /// Renders `file` with `settings` and encodes the PNG as `ImageRender` writes it (the
    /// location, with how it was rendered, in its `fathom-location` chunk).
    static func renderPNG(_ file: LocationFile, settings: RenderSettings, control: RenderControl) throws -> (
        RenderResult, Data
    ) {
        var settings = settings
        try file.engine?.apply(to: &settings)
        let color = file.color ?? ColorSettings()
        settings.extras = color.extrasRequest
        let result = try Renderer.render(location: try file.location(), settings: settings, control: control)
        let resolved = color.resolved(for: result.field)
        let image = try Colorizer.image(result.field, settings: resolved, bitDepth: .eight, supersample: 1)
        let stored = ImageRender.stored(file, color: resolved, settings: settings, result: result)
        let png = try PNGWriter.encode(image, text: [(FathomInfo.locationKey, stored.jsonString())])
        return (result, png)
    }

    /// Registers a render of `view` for `client`, cancelling the client's older views; nil when a
    /// newer view is already registered.
    private func begin(client: String, view: Int) -> RenderControl? {
        lock.lock()
        defer { lock.unlock() }
        var state = clients[client] ?? (sequence: -1, controls: [:])
        guard view >= state.sequence else { return nil }
        if view > state.sequence {
            for (older, control) in state.controls where older < view { control.cancel() }
            state.sequence = view
        }
        let control = state.controls[view] ?? RenderControl()
        state.controls[view] = control
        clients[client] = state
        return control
    }

    private func end(client: String, view: Int) {
        lock.lock()
        defer { lock.unlock() }
        guard var state = clients[client] else { return }
        state.controls[view] = nil
        // Many clients (a load test, many tabs): an idle one's entry goes, and the table stays bounded.
        clients[client] = state.controls.isEmpty && clients.count > 256 ? nil : state
    }
}
