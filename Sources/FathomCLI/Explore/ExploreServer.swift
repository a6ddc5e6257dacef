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
    static let maximumSide = 4096, maximumPixels = 3840 * 2160, maximumIterations = 1_000_000_000
    /// The largest request body: a location file (deep views have long numbers) or the state.
    static let bodyLimit = 4 << 20

    private let lock = NSLock()
    /// Per client (the page's random id): its newest view's sequence number, the work of its
    /// views still running (cancelled when a newer view arrives), and the render running now.
    private struct Client {
        var sequence = -1
        var controls: [Int: RenderControl] = [:]
        var running: (view: Int, control: RenderControl, start: Date)?
        /// The colours the client's latest preview resolved, for its view's middle-out step.
        var previewColor: (view: Int, color: ColorSettings)?
        /// The reference orbits and tables of the client's recent views (`cache(client:view:)`),
        /// and the newest view that asked for it.
        let cache = ReferenceCache()
        var cacheView = -1
    }
    private var clients: [String: Client] = [:]
    /// The clients whose caches hold orbits, most recent first: at most `cachedClients` do.
    private var recentCaches: [String] = []
    static let cachedClients = 4
    /// The page's state (last view, bookmarks), kept in the user's state folder.
    let store: ExploreStore
    /// Full-size renders in the background.
    let jobs: ExploreJobs
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

    init(store: ExploreStore, jobsFolder: String, base: @escaping (RenderSettings) throws -> RenderSettings) {
        self.store = store
        jobs = ExploreJobs(folder: jobsFolder, base: base)
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

    /// At most this many connections at once (the library refuses more), and at most
    /// `maximumWaiting` renders or searches waiting for the one running (503 past that).
    static let connectionLimit = 32, maximumWaiting = 8

    /// The checks on a request's headers alone, before its body is read: a refusal, or nil.
    func admit(_ request: HTTPServer.Request) -> HTTPServer.Reply? {
        guard var reply = refusal(request) else { return nil }
        reply.headers = Self.commonHeaders + reply.headers
        return reply
    }

    /// Answers one request.
    func handle(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        var reply = route(request)
        reply.headers = Self.commonHeaders + reply.headers
        return reply
    }

    private func route(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        if let refusal = refusal(request) { return refusal }
        guard let methods = Self.routes[request.path] else { return .text(404, "not found") }
        guard let answer = methods[request.method] else { return .text(405, "method not allowed") }
        return answer(self, request)
    }

    typealias Route = @Sendable (ExploreServer, HTTPServer.Request) -> HTTPServer.Reply
    /// What the server answers: by path, then method (a known path with another method: 405).
    private static let routes: [String: [String: Route]] = [
        "/": ["GET": { s, _ in s.page("index.html", "text/html; charset=utf-8") }],
        "/explorer.js": ["GET": { s, _ in s.page("explorer.js", "text/javascript; charset=utf-8") }],
        "/explorer.css": ["GET": { s, _ in s.page("explorer.css", "text/css; charset=utf-8") }],
        "/api/render": ["POST": { s, r in s.render(r) }],
        "/api/minibrot": ["POST": { s, r in s.minibrot(r) }],
        "/api/progress": ["GET": { s, r in s.progress(r) }],
        "/api/presets": ["GET": { s, _ in s.presets() }],
        "/api/import": ["POST": { s, r in s.importFile(r) }],
        "/api/export": ["POST": { s, r in s.export(r) }],
        "/api/jobs": ["POST": { s, r in s.jobs.submit(r) }, "GET": { s, _ in s.jobs.list() }],
        "/api/jobs/video": ["POST": { s, r in s.jobs.submitVideo(r) }],
        "/api/jobs/file": ["GET": { s, r in s.jobs.file(r) }],
        "/api/jobs/cancel": ["POST": { s, r in s.jobs.cancel(r) }],
        "/api/keyframes": ["POST": { s, r in s.jobs.keyframes(r) }],
        "/api/state": ["GET": { s, _ in s.store.reply() }],
        "/api/state/last": ["POST": { s, r in s.store.setLast(r.body) }],
        "/api/state/bookmark": ["POST": { s, r in s.store.addBookmark(r.body) }],
        "/api/thumbnail": ["GET": { s, r in s.store.thumbnail(r) }],
        "/api/state/journal": ["POST": { s, r in s.store.append(r.body) }],
    ]

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
        guard let (width, height) = Self.size(request.argument("width"), request.argument("height")) else {
            return .text(
                400,
                "width and height: whole numbers, each 1...\(Self.maximumSide), at most \(Self.maximumPixels) pixels")
        }
        let npy = request.argument("format") == "npy"
        let client: String, view: Int
        var file: LocationFile
        switch Self.work(request) {
        case .success(let work): (client, view, file) = work
        case .failure(let refusal): return refusal.reply
        }
        // A preview names its view's full size: the full view's references are computed first
        // and serve both (an orbit at more precision serves a view that needs less).
        var full: (Int, Int)?
        if let text = request.argument("full") {
            let parts = text.split(separator: "x", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, let size = Self.size(parts[0], parts[1]) else {
                return .text(400, "full: WxH within the same limits as width and height")
            }
            full = size
        }
        // A window: the pixels of one rectangle of the view alone (the middle first).
        var window: Window?
        if let text = request.argument("window") {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3],
                x >= 0, y >= 0, w >= 1, h >= 1, x <= width - w, y <= height - h, !npy, full == nil
            else {
                return .text(400, "window: x,y,w,h inside the image (a PNG, without full=)")
            }
            window = Window(x: x, y: y, width: w, height: h)
        }
        file.width = width
        file.height = height

        guard let control = begin(client: client, view: view) else { return .text(409, "superseded by a newer view") }
        defer { end(client: client, view: view) }
        if let busy = acquire(control) { return busy }
        defer { renders.signal() }
        setRunning(client: client, (view, control, Date()))
        defer { setRunning(client: client, nil) }
        do {
            var settings = try base(try file.renderSettings())
            let cache = cache(client: client, view: view)
            settings.perturbation.cache = cache
            let hits = cache.orbitHits
            let start = Date()
            if let (w, h) = full {
                // The full view's references, primed as a sequence primes its frames'.
                var prime = settings
                (prime.width, prime.height) = (w, h)
                try FrameSequence(frames: [file]).prime(0...0, settings: prime, control: control.part(0...0.5))
            }
            let result: RenderResult, png: Data
            if let window {
                // Coloured as the view's preview was, where it was (the whole view's colours).
                (result, png) = try ExploreServer.renderWindow(
                    file, window, color: previewColor(client: client, view: view), settings: settings,
                    control: control)
            } else {
                let encoded = try ImageRender.encoded(
                    file, settings: settings, control: full == nil ? control : control.part(0.5...1))
                (result, png) = (encoded.result, encoded.png)
                if full != nil { setPreviewColor(client: client, (view, encoded.color)) }
            }
            let seconds = String(format: "%.3f", Date().timeIntervalSince(start))
            // How many reference orbits came from the cache (the preview's, or an earlier view's),
            // and where auto-zoom goes next.
            var headers = [
                ("X-Fathom-Seconds", seconds), ("X-Fathom-Path", result.report.path.rawValue),
                ("X-Fathom-Reused", "\(cache.orbitHits - hits)"),
            ]
            if let (x, y) = Self.boundaryTarget(result.field) { headers.append(("X-Fathom-Target", "\(x),\(y)")) }
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

    /// Where auto-zoom heads in a rendered field (Documentation/Explorer.md, "Auto-zoom"): of
    /// the escaped pixels that took at least 9/10 of the most iterations any took (those next to
    /// the set's deepest parts), the one nearest the center; nil when no pixel escaped (or, for
    /// Newton, converged).
    static func boundaryTarget(_ field: IterationField) -> (Int, Int)? {
        // One pass over the counts alone (the field's row-major `nBig`), nearest first among equals.
        let w = field.width, h = field.height
        guard let most = field.nBig.max(), most > 0 else { return nil }
        let floor = most - most / 10
        var best: (index: Int, distance: Int)?
        for (i, n) in field.nBig.enumerated() where n >= floor {
            let dx = 2 * (i % w) + 1 - w, dy = 2 * (i / w) + 1 - h
            let distance = dx * dx + dy * dy
            if best.map({ distance < $0.distance }) ?? true { best = (i, distance) }
        }
        return best.map { ($0.index % w, $0.index / w) }
    }

    /// An image size from a request's text: whole numbers, each 1...`maximumSide`, at most
    /// `maximumPixels` (checked in that order, so the product cannot overflow); nil otherwise.
    static func size(_ width: String?, _ height: String?) -> (Int, Int)? {
        guard let w = width.flatMap({ Int($0) }), let h = height.flatMap({ Int($0) }),
            (1...maximumSide).contains(w), (1...maximumSide).contains(h), w * h <= maximumPixels
        else { return nil }
        return (w, h)
    }

    /// The location file in a request's body, checked as `fathom render --location` checks it
    /// (its own one-line error), and with `forRendering` the explorer's iteration limit.
    static func location(in body: Data, forRendering: Bool = true) -> Result<LocationFile, Refusal> {
        do {
            let file = try LocationFile.decodeJSON(body, path: "the request's location")
            _ = try file.location()
            guard !forRendering || file.maxIterations <= maximumIterations else {
                return .failure(Refusal(400, "maxIterations: at most \(maximumIterations) in the explorer"))
            }
            return .success(file)
        } catch {
            return .failure(Refusal(400, "\(error)"))
        }
    }

    /// A refused request's reply, as an error.
    struct Refusal: Error {
        let reply: HTTPServer.Reply
        init(_ status: Int, _ text: String) { reply = .text(status, text) }
    }

    /// A work request's client and view (query) and location file (body), each checked: the
    /// file's own one-line error for a malformed one.
    static func work(_ request: HTTPServer.Request) -> Result<(String, Int, LocationFile), Refusal> {
        let client = request.argument("client") ?? ""
        guard (1...64).contains(client.utf8.count), client.utf8.allSatisfy({ $0 > 32 && $0 < 127 }),
            let view = request.argument("view").flatMap({ Int($0) }), view >= 0
        else {
            return .failure(
                Refusal(400, "client (1 to 64 ASCII characters) and view (a whole number >= 0) are required"))
        }
        let file: LocationFile
        switch location(in: request.body) {
        case .success(let checked): file = checked
        case .failure(let refusal): return .failure(refusal)
        }
        guard (file.supersample ?? 1) == 1 else {
            return .failure(Refusal(400, "supersample: the explorer renders 1 sample a pixel"))
        }
        return .success((client, view, file))
    }

    /// POST /api/minibrot?client=ID&view=N with a location file whose center is the point to
    /// search around and whose radius is the search's: the minibrot that dominates there, as
    /// `fathom find` finds it (period, Newton nucleus, size), answered as the location file that
    /// shows it (`MinibrotFinder.location`: nucleus at the center, radius 4 x size, at least 100
    /// periods of iterations), or 404. Mandelbrot only (400 otherwise). A newer view cancels it.
    private func minibrot(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        let client: String, view: Int, file: LocationFile
        switch Self.work(request) {
        case .success(let work): (client, view, file) = work
        case .failure(let refusal): return refusal.reply
        }
        guard let location = try? file.location(), case .mandelbrot = location.family else {
            return .text(400, "only the Mandelbrot family has minibrots to find")
        }
        guard let control = begin(client: client, view: view) else { return .text(409, "superseded by a newer view") }
        defer { end(client: client, view: view) }
        if let busy = acquire(control) { return busy }
        defer { renders.signal() }
        do {
            let viewport = try Viewport(location: location, width: 1, height: 1)
            guard
                let m = MinibrotFinder.find(
                    near: viewport.center, radius: viewport.radius.floatExpValue, control: control)
            else {
                return control.isCancelled
                    ? .text(409, "superseded by a newer view") : .text(404, "no minibrot found here")
            }
            var found = LocationFile(
                location: MinibrotFinder.location(
                    of: m, iterations: location.maxIterations, name: "minibrot-p\(m.period)"))
            found.color = file.color
            found.rotation = file.rotation
            return HTTPServer.Reply(
                status: 200, contentType: "application/json", body: Data(found.jsonString().utf8),
                headers: [("X-Fathom-Period", "\(m.period)")])
        } catch {
            return .text(422, "\(error)")
        }
    }

    /// GET /api/presets: the built-in views (`fathom presets`) as JSON: name, summary, the
    /// location file and, where the page has one, its thumbnail (a 96x54 JPEG data URL).
    private func presets() -> HTTPServer.Reply {
        let items = Presets.all.map { p in
            "{\"name\":\(Self.json(p.name)),\"summary\":\(Self.json(p.summary)),\"location\":"
                + LocationFile(location: p.location).jsonString()
                + (Self.presetThumbnails[p.name].map { ",\"thumbnail\":" + Self.json($0) } ?? "") + "}"
        }
        return HTTPServer.Reply(
            status: 200, contentType: "application/json", body: Data(("[" + items.joined(separator: ",") + "]").utf8))
    }

    /// The presets' thumbnails, by name: 96x54 JPEG data URLs made by Scripts/preset-thumbnails.sh
    /// and embedded with the page (Page/preset-thumbnails.json).
    static let presetThumbnails: [String: String] = {
        struct Thumbnail: Decodable { let jpeg: String }
        guard let text = ExplorerPage.files["preset-thumbnails.json"],
            let table = try? JSONDecoder().decode([String: Thumbnail].self, from: Data(text.utf8))
        else { return [:] }
        return table.mapValues(\.jpeg).filter { $0.value.hasPrefix("data:image/jpeg;base64,") }
    }()

    /// A string as a JSON literal.
    static func json(_ text: String) -> String {
        (try? String(decoding: JSONEncoder().encode(text), as: UTF8.self)) ?? "\"\""
    }

    /// POST /api/import?name=FILE with a file's bytes (a location .json, a .kfr or a Fathom
    /// PNG, as `fathom render --location` reads them): its location file as JSON, or 400 with
    /// the reader's one-line error.
    private func importFile(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        let name = (request.argument("name") ?? "dropped file").prefix(200)
        do {
            let file = try LocationFile.decode(request.body, path: String(name))
            _ = try file.location()
            return HTTPServer.Reply(status: 200, contentType: "application/json", body: Data(file.jsonString().utf8))
        } catch {
            return .text(400, "\(error)")
        }
    }

    /// POST /api/export?format=json|kfr with a location file: the file to save (pretty JSON, or
    /// .kfr text as `fathom convert` writes it), as an attachment.
    private func export(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        let kfr = request.argument("format") == "kfr"
        let file: LocationFile
        switch Self.location(in: request.body, forRendering: false) {
        case .success(let checked): file = checked
        case .failure(let refusal): return refusal.reply
        }
        do {
            let text = kfr ? try KFR.text(of: file) : file.prettyJSONString()
            return HTTPServer.Reply(
                status: 200, contentType: kfr ? "text/plain; charset=utf-8" : "application/json",
                body: Data(text.utf8),
                headers: [("Content-Disposition", "attachment; filename=\"fathom-view.\(kfr ? "kfr" : "json")\"")])
        } catch {
            return .text(400, "\(error)")
        }
    }

    /// GET /api/progress?client=ID: the client's render running now, as JSON: its view, the
    /// fraction done (the engine's estimate, never decreasing) and the seconds so far; `{}`
    /// when none runs.
    private func progress(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        let client = request.argument("client") ?? ""
        lock.lock()
        let running = clients[client]?.running
        lock.unlock()
        var text = "{}"
        if let running {
            text =
                "{\"view\":\(running.view),"
                + String(
                    format: "\"fraction\":%.4f,\"seconds\":%.3f}", running.control.fractionDone,
                    Date().timeIntervalSince(running.start))
        }
        return HTTPServer.Reply(status: 200, contentType: "application/json", body: Data(text.utf8))
    }

    /// Waits for the one render slot, giving up when `control` is cancelled (409) or when
    /// `maximumWaiting` others wait already (503). Nil: the slot is taken (`renders.signal()` after).
    private func acquire(_ control: RenderControl) -> HTTPServer.Reply? {
        lock.lock()
        guard waiting < Self.maximumWaiting else {
            lock.unlock()
            return .text(503, "the server is busy: \(Self.maximumWaiting) renders wait already")
        }
        waiting += 1
        lock.unlock()
        defer {
            lock.lock()
            waiting -= 1
            lock.unlock()
        }
        while renders.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if control.isCancelled { return .text(409, "superseded by a newer view") }
        }
        if control.isCancelled {
            renders.signal()
            return .text(409, "superseded by a newer view")
        }
        return nil
    }
    private var waiting = 0

    /// Cancels every render and search (the server is stopping) and every job.
    func cancelAll() {
        lock.lock()
        for client in clients.values { client.controls.values.forEach { $0.cancel() } }
        lock.unlock()
        jobs.cancelAll()
    }

    /// The client's reference cache. Its orbits and tables serve every later view whose
    /// reference they fit (Renderer's placement looks there first): the preview's serve the
    /// middle and the full render, and a view returned to (back, a bookmark, a pan back) finds
    /// its orbit again. When a newer view than the cache has seen starts, the cache is emptied
    /// first if it holds `keptOrbits` orbits or `keptOrbitBytes` of them; never within a view.
    private func cache(client: String, view: Int) -> ReferenceCache {
        lock.lock()
        defer { lock.unlock() }
        var state = clients[client] ?? Client()
        if view > state.cacheView {
            let orbits = state.cache.storedOrbits
            if orbits.count >= Self.keptOrbits || orbits.reduce(0, { $0 + $1.byteCount }) > Self.keptOrbitBytes {
                state.cache.removeAll()
            }
            state.cacheView = view
        }
        clients[client] = state
        // Memory stays bounded: the least recent clients' orbits go.
        recentCaches.removeAll { $0 == client }
        recentCaches.insert(client, at: 0)
        while recentCaches.count > Self.cachedClients {
            clients[recentCaches.removeLast()]?.cache.removeAll()
        }
        return state.cache
    }
    /// A client's cache is emptied when a new view starts and it holds this many orbits or bytes of them.
    static let keptOrbits = 4, keptOrbitBytes = 64 << 20

    private func previewColor(client: String, view: Int) -> ColorSettings? {
        lock.lock()
        defer { lock.unlock() }
        guard let kept = clients[client]?.previewColor, kept.view == view else { return nil }
        return kept.color
    }

    private func setPreviewColor(client: String, _ kept: (view: Int, color: ColorSettings)) {
        lock.lock()
        clients[client]?.previewColor = kept
        lock.unlock()
    }

    private func setRunning(client: String, _ running: (view: Int, control: RenderControl, start: Date)?) {
        lock.lock()
        clients[client]?.running = running
        lock.unlock()
    }

    /// A rectangle of an image's pixels.
    struct Window {
        let x: Int, y: Int, width: Int, height: Int
    }

    /// The pixels of `window` alone, rendered as the whole view renders them (the same
    /// references and passes: `RenderSettings.onlyPixels`), coloured by `color` (the view's
    /// preview's resolved colours) or else by the colours resolved for them alone, as a PNG of
    /// the window without a location: the page's provisional middle-out step
    /// (Documentation/Explorer.md, "How a view is rendered").
    static func renderWindow(
        _ file: LocationFile, _ window: Window, color given: ColorSettings?, settings: RenderSettings,
        control: RenderControl
    ) throws -> (RenderResult, Data) {
        var settings = settings
        try file.engine?.apply(to: &settings)
        let color = file.color ?? ColorSettings()
        settings.extras = color.extrasRequest
        settings.onlyPixels = (window.y..<(window.y + window.height)).flatMap { y in
            (window.x..<(window.x + window.width)).map { y * settings.width + $0 }
        }
        let result = try Renderer.render(location: try file.location(), settings: settings, control: control)
        let image = try Colorizer.image(
            result.field, settings: given ?? color.resolved(for: result.field), bitDepth: .eight, supersample: 1)
        var pixels: [UInt8] = []
        pixels.reserveCapacity(window.width * window.height * 3)
        for y in window.y..<(window.y + window.height) {
            let start = (y * image.width + window.x) * 3
            pixels += image.pixels[start..<(start + window.width * 3)]
        }
        let cropped = try RGBImage(width: window.width, height: window.height, bitDepth: .eight, pixels: pixels)
        return (result, try PNGWriter.encode(cropped, text: []))
    }

    /// Registers a render of `view` for `client`, cancelling the client's older views; nil when a
    /// newer view is already registered.
    private func begin(client: String, view: Int) -> RenderControl? {
        lock.lock()
        defer { lock.unlock() }
        var state = clients[client] ?? Client()
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
