import Fathom
import Foundation

/// "Render full size": renders that run in the background, apart from the page's views, and
/// go on when the tab is closed (Documentation/Explorer.md, "Full-size renders"). Each writes
/// its PNG (with the location, as `fathom render` writes it; 8 or 16 bits, 1 to 4 samples a
/// side) and optionally its NumPy field into `folder`, all or nothing (`ImageRender`'s output
/// set), one job at a time, at most `maximumQueued` waiting.
final class ExploreJobs: @unchecked Sendable {
    struct Job {
        let id: Int
        let name: String
        let width: Int, height: Int, supersample: Int, bitDepth: BitDepth, npy: Bool
        var state = "queued"
        var message: String?
        var control = RenderControl()
        var started: Date?
        var seconds: Double?
        var png: String?
        var npyPath: String?
    }

    static let maximumQueued = 8
    /// The finished jobs listed (older ones leave the list; their files stay).
    static let maximumListed = 50

    let folder: String
    private let base: (RenderSettings) throws -> RenderSettings
    private let lock = NSLock()
    private var jobs: [Job] = []
    private var next = 1
    private let queue = DispatchQueue(label: "fathom.explore.jobs")

    init(folder: String, base: @escaping (RenderSettings) throws -> RenderSettings) {
        self.folder = folder
        self.base = base
    }

    /// `$XDG_DATA_HOME/fathom/renders` (without it, `~/.local/share/fathom/renders`).
    static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        ExploreStore.userFolder("XDG_DATA_HOME", else: ".local/share", environment: environment) + "/fathom/renders"
    }

    /// The time now for a file name: ISO 8601 without colons.
    static func stamp() -> String {
        ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
    }

    /// POST /api/jobs?width=W&height=H[&supersample=K][&depth=16][&npy=1] with a location file:
    /// queues the render, answers 202 with its id.
    func submit(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        let k = request.argument("supersample").flatMap { Int($0) } ?? 1
        // The image within the explorer's limits first (so that the products below cannot
        // overflow), then its samples within the engine's.
        guard let (width, height) = ExploreServer.size(request.argument("width"), request.argument("height")),
            (1...4).contains(k), (try? ImageSize.validate(width: width * k, height: height * k)) != nil
        else {
            return .text(
                400,
                "width and height each 1...\(ExploreServer.maximumSide), at most \(ExploreServer.maximumPixels) pixels; supersample 1...4 within the engine's image limits"
            )
        }
        let depth: BitDepth = request.argument("depth") == "16" ? .sixteen : .eight
        var file: LocationFile
        switch ExploreServer.location(in: request.body) {
        case .success(let checked): file = checked
        case .failure(let refusal): return refusal.reply
        }
        file.width = width
        file.height = height
        file.supersample = k == 1 ? nil : k
        lock.lock()
        defer { lock.unlock() }
        guard jobs.filter({ $0.state == "queued" || $0.state == "running" }).count < Self.maximumQueued else {
            return .text(503, "\(Self.maximumQueued) renders are waiting already")
        }
        let id = next
        next += 1
        let job = Job(
            id: id, name: "fathom-\(Self.stamp())-\(id)", width: width, height: height, supersample: k, bitDepth: depth,
            npy: request.argument("npy") == "1")
        jobs.append(job)
        let finished = jobs.filter { $0.state != "queued" && $0.state != "running" }
        if finished.count > Self.maximumListed {
            let gone = Set(finished.prefix(finished.count - Self.maximumListed).map(\.id))
            jobs.removeAll { gone.contains($0.id) }
        }
        let location = file
        queue.async { self.run(id, location) }
        return HTTPServer.Reply(status: 202, contentType: "application/json", body: Data("{\"id\":\(id)}".utf8))
    }

    private func update(_ id: Int, _ change: (inout Job) -> Void) {
        lock.lock()
        if let k = jobs.firstIndex(where: { $0.id == id }) { change(&jobs[k]) }
        lock.unlock()
    }

    private func job(_ id: Int) -> Job? {
        lock.lock()
        defer { lock.unlock() }
        return jobs.first { $0.id == id }
    }

    private func run(_ id: Int, _ file: LocationFile) {
        // Queued to running under the lock, unless cancelled while queued.
        lock.lock()
        guard let k = jobs.firstIndex(where: { $0.id == id }), jobs[k].state == "queued" else {
            lock.unlock()
            return
        }
        jobs[k].state = "running"
        jobs[k].started = Date()
        let job = jobs[k]
        lock.unlock()
        let png = folder + "/" + job.name + ".png"
        let npy = job.npy ? folder + "/" + job.name + ".npy" : nil
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let settings = try base(try file.renderSettings())
            try ImageRender.render(
                file, settings: settings, to: png, npy: npy, bitDepth: job.bitDepth, control: job.control)
            update(id) {
                $0.state = "done"
                $0.png = png
                $0.npyPath = npy
            }
        } catch let error as RenderError where error == .cancelled {
            update(id) { $0.state = "cancelled" }
        } catch {
            update(id) {
                $0.state = "failed"
                $0.message = "\(error)"
            }
        }
        update(id) { $0.seconds = $0.started.map { Date().timeIntervalSince($0) } }
    }

    /// POST /api/keyframes with a JSON array of location files (the journal's views, 2 to
    /// `ExploreStore.maximumJournal`): writes them as `keyframe-00001.json`... into a new folder
    /// of `folder` (made whole under a temporary name, then renamed), and answers its path and
    /// the `fathom sequence` command that renders the zoom between them.
    func keyframes(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        guard let files = try? JSONDecoder().decode([LocationFile].self, from: request.body),
            (2...ExploreStore.maximumJournal).contains(files.count)
        else { return .text(400, "a JSON array of 2 to \(ExploreStore.maximumJournal) location files") }
        var texts: [String] = []
        for (k, file) in files.enumerated() {
            do {
                _ = try file.location()
            } catch {
                return .text(400, "keyframe \(k + 1): \(error)")
            }
            texts.append(file.prettyJSONString())
        }
        let stamp = Self.stamp()
        lock.lock()
        let serial = next
        next += 1
        lock.unlock()
        // A name of its own (the run's next number): two exports in one second never meet.
        let target = folder + "/fathom-\(stamp)-\(serial)-keyframes"
        let staging = folder + "/.fathom-\(stamp)-\(serial)-keyframes.partial"
        do {
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
            for (k, text) in texts.enumerated() {
                try Data(text.utf8).write(
                    to: URL(fileURLWithPath: staging + String(format: "/keyframe-%05d.json", k + 1)), options: .atomic)
            }
            guard !FileManager.default.fileExists(atPath: target) else {
                try? FileManager.default.removeItem(atPath: staging)
                return .text(409, "\(target) exists already")
            }
            try FileManager.default.moveItem(atPath: staging, toPath: target)
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            return .text(507, "cannot write the keyframes: \(error.localizedDescription)")
        }
        let command = "fathom sequence --per-segment 24 --output-dir \(target)/frames \(target)/keyframe-*.json"
        return HTTPServer.Reply(
            status: 200, contentType: "application/json",
            body: Data("{\"folder\":\(ExploreServer.json(target)),\"command\":\(ExploreServer.json(command))}".utf8))
    }

    /// GET /api/jobs: every job of this run, newest last, as JSON.
    func list() -> HTTPServer.Reply {
        lock.lock()
        let items = jobs.map { job -> String in
            let elapsed = job.seconds ?? job.started.map { Date().timeIntervalSince($0) } ?? 0
            var item =
                "{\"id\":\(job.id),\"name\":\(ExploreServer.json(job.name)),\"state\":\"\(job.state)\","
                + "\"width\":\(job.width),\"height\":\(job.height),\"supersample\":\(job.supersample),"
                + "\"depth\":\(job.bitDepth.rawValue),\"npy\":\(job.npy),"
                + String(format: "\"fraction\":%.4f,\"seconds\":%.3f", job.control.fractionDone, elapsed)
            if let message = job.message { item += ",\"message\":\(ExploreServer.json(message))" }
            if let png = job.png { item += ",\"png\":\(ExploreServer.json(png))" }
            return item + "}"
        }
        lock.unlock()
        return HTTPServer.Reply(
            status: 200, contentType: "application/json", body: Data(("[" + items.joined(separator: ",") + "]").utf8))
    }

    /// GET /api/jobs/file?id=N&kind=png|npy: a finished job's file, as a download.
    func file(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        guard let id = request.argument("id").flatMap({ Int($0) }), let job = job(id) else {
            return .text(404, "no such render")
        }
        let npy = request.argument("kind") == "npy"
        guard let path = npy ? job.npyPath : job.png, let data = FileManager.default.contents(atPath: path) else {
            return .text(404, "that render has no such file (yet)")
        }
        return HTTPServer.Reply(
            status: 200, contentType: npy ? "application/octet-stream" : "image/png", body: data,
            headers: [("Content-Disposition", "attachment; filename=\"\(job.name).\(npy ? "npy" : "png")\"")])
    }

    /// POST /api/jobs/cancel?id=N: cancels a queued or running job (its files are not written).
    func cancel(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        guard let id = request.argument("id").flatMap({ Int($0) }) else { return .text(404, "no such render") }
        lock.lock()
        defer { lock.unlock() }
        guard let k = jobs.firstIndex(where: { $0.id == id }) else { return .text(404, "no such render") }
        // A queued job is cancelled here; a running one stops at its next check and its run
        // records "cancelled" (no file is written either way).
        jobs[k].control.cancel()
        if jobs[k].state == "queued" { jobs[k].state = "cancelled" }
        return HTTPServer.Reply(status: 204, contentType: "text/plain", body: Data())
    }

    /// Cancels every job (the server is stopping).
    func cancelAll() {
        lock.lock()
        for k in jobs.indices {
            jobs[k].control.cancel()
            if jobs[k].state == "queued" { jobs[k].state = "cancelled" }
        }
        lock.unlock()
    }
}
