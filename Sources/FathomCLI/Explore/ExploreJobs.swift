import Fathom
import Foundation

/// "Render full size": renders that run in the background, apart from the page's views, and
/// go on when the tab is closed (Documentation/Explorer.md, "Full-size renders"). Each writes
/// its PNG (with the location, as `fathom render` writes it; 8 or 16 bits, 1 to 4 samples a
/// side) and optionally its NumPy field into `folder`, all or nothing (`ImageRender`'s output
/// set), one job at a time, at most `maximumQueued` waiting.
final class ExploreJobs: @unchecked Sendable {
    struct Job {
        var id: Int
        var name: String
        let width: Int, height: Int, supersample: Int, bitDepth: BitDepth, npy: Bool
        var state = "queued"
        var message: String?
        var control = RenderControl()
        var started: Date?
        var seconds: Double?
        var png: String?
        var npyPath: String?
        /// A zoom video's frame count and, once done, its MP4 and frames folder.
        var frames: Int?
        var video: String?
    }

    /// What a job makes: one image, or a zoom video through the journal's views (made into
    /// frames by the job itself, `perPair` from each view to the next).
    enum Work {
        case image(LocationFile)
        case video([LocationFile], perPair: Int)
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
        let job = Job(
            id: 0, name: "fathom-\(Self.stamp())", width: width, height: height, supersample: k, bitDepth: depth,
            npy: request.argument("npy") == "1")
        return enqueue(job, .image(file))
    }

    /// Adds `job` (its id the next) to the list, within `maximumQueued` jobs waiting or
    /// running, and runs it in turn: 202 with its id, or 503.
    private func enqueue(_ job: Job, _ work: Work) -> HTTPServer.Reply {
        lock.lock()
        defer { lock.unlock() }
        guard jobs.filter({ $0.state == "queued" || $0.state == "running" }).count < Self.maximumQueued else {
            return .text(503, "\(Self.maximumQueued) renders are waiting already")
        }
        var job = job
        job.id = next
        job.name += "-\(next)"
        next += 1
        jobs.append(job)
        let finished = jobs.filter { $0.state != "queued" && $0.state != "running" }
        if finished.count > Self.maximumListed {
            let gone = Set(finished.prefix(finished.count - Self.maximumListed).map(\.id))
            jobs.removeAll { gone.contains($0.id) }
        }
        let id = job.id
        queue.async { self.run(id, work) }
        return HTTPServer.Reply(status: 202, contentType: "application/json", body: Data("{\"id\":\(id)}".utf8))
    }

    /// A zoom video's frames: at most this many in all, and 30 to a pair of views (so 30 s at 30
    /// frames a second at most, as replay takes at most 30 s); at most this many pixels a frame;
    /// and at most `maximumVideoDigits` characters of centers over all its frames (a view at
    /// 1e-100000 has 100,000-digit centers: its video gets fewer frames, so that making them
    /// stays bounded).
    static let maximumVideoFrames = 900, framesPerPair = 30, videoFPS = 30.0
    static let maximumVideoPixels = 1920 * 1080, maximumVideoDigits = 64 << 20

    /// POST /api/jobs/video?width=W&height=H with a JSON array of 2 to `maximumVideoFrames`
    /// location files of one family (the journal's views since its last change of family):
    /// queues a zoom video through them, as `fathom sequence` between keyframes and then `fathom
    /// video` make it: the frames (min(30, 899 / pairs) from each view to the next, at least
    /// 1, fewer for very deep views) into `NAME-frames/`, then `NAME.mp4` at 30 frames a second
    /// (ffmpeg, which must be installed: 501 otherwise). 202 with its id.
    func submitVideo(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        guard let (width, height) = ExploreServer.size(request.argument("width"), request.argument("height")),
            width * height <= Self.maximumVideoPixels
        else {
            return .text(
                400, "width and height each 1...\(ExploreServer.maximumSide), at most 1920 x 1080 pixels a video frame")
        }
        let files: [LocationFile]
        switch Self.views(in: request.body, most: Self.maximumVideoFrames, noun: "view") {
        case .success(let checked): files = checked
        case .failure(let refusal): return refusal.reply
        }
        var longest = 0
        for (k, file) in files.enumerated() {
            guard file.maxIterations <= ExploreServer.maximumIterations, (file.supersample ?? 1) == 1 else {
                return .text(
                    400, "view \(k + 1): at most \(ExploreServer.maximumIterations) iterations, 1 sample a pixel")
            }
            let first = files[0]
            guard file.family == first.family, file.power == first.power, file.juliaC == first.juliaC,
                file.newton == first.newton
            else {
                return .text(400, "view \(k + 1) changes the family: a video's views are of one family")
            }
            longest = max(longest, file.center.reduce(0) { $0 + $1.utf8.count })
        }
        guard VideoEncoder.program("ffmpeg") != nil else {
            return .text(501, "\(VideoEncoder.Failure.noFFmpeg)")
        }
        let pairs = files.count - 1
        let perPair = min(
            Self.framesPerPair, (Self.maximumVideoFrames - 1) / pairs, Self.maximumVideoDigits / (longest * pairs))
        guard perPair >= 1 else {
            return .text(400, "these views are too deep for a video of \(files.count) views: take fewer views")
        }
        var job = Job(
            id: 0, name: "fathom-\(Self.stamp())", width: width, height: height, supersample: 1, bitDepth: .eight,
            npy: false)
        job.frames = perPair * pairs + 1
        return enqueue(job, .video(files, perPair: perPair))
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

    private func run(_ id: Int, _ work: Work) {
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
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            switch work {
            case .image(let file):
                let png = folder + "/" + job.name + ".png"
                let npy = job.npy ? folder + "/" + job.name + ".npy" : nil
                let settings = try base(try file.renderSettings())
                try ImageRender.render(
                    file, settings: settings, to: png, npy: npy, bitDepth: job.bitDepth, control: job.control)
                update(id) {
                    $0.png = png
                    $0.npyPath = npy
                }
            case .video(let views, let perPair):
                let video = try makeVideo(try FrameSequence.between(views, perSegment: perPair), job)
                update(id) { $0.video = video }
            }
            update(id) { $0.state = "done" }
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

    /// Renders `sequence`'s frames into a folder of their own (made whole under a temporary
    /// name: the first 90% of the job's progress), then encodes them as `NAME.mp4`; both are
    /// kept only when both are made (a failure or a cancel removes them). Returns the MP4's path.
    private func makeVideo(_ sequence: FrameSequence, _ job: Job) throws -> String {
        let output = folder + "/" + job.name + ".mp4"
        let frames = folder + "/" + job.name + "-frames"
        let staging = folder + "/." + job.name + "-frames.partial"
        let outputs = try OutputSet([output])
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        do {
            var settings = try base(try sequence.frames[0].renderSettings())
            (settings.width, settings.height) = (job.width, job.height)
            _ = try sequence.render(
                0...(sequence.frames.count - 1), into: staging, settings: settings, control: job.control.part(0...0.9))
            let encoder = try VideoEncoder(outputs, at: 0, fps: Self.videoFPS)
            do {
                let count = sequence.frames.count
                for k in 0..<count {
                    if job.control.isCancelled { throw RenderError.cancelled }
                    let path = staging + "/" + FrameSequence.fileName(frame: k)
                    guard let png = FileManager.default.contents(atPath: path) else {
                        throw ExploreJobError("cannot read the frame \(path)")
                    }
                    try encoder.append(png: png)
                    job.control.part(0.9 + 0.1 * Double(k) / Double(count)...0.9 + 0.1 * Double(k + 1) / Double(count))
                        .finish()
                }
                try encoder.finish()
                // A cancel that came while the encoder finished: no files either.
                if job.control.isCancelled { throw RenderError.cancelled }
            } catch {
                encoder.cancel()
                throw error
            }
            guard !FileManager.default.fileExists(atPath: frames) else {
                throw ExploreJobError("\(frames) exists already")
            }
            try FileManager.default.moveItem(atPath: staging, toPath: frames)
            do {
                try outputs.commit()
            } catch {
                try? FileManager.default.removeItem(atPath: frames)
                throw error
            }
            return output
        } catch {
            outputs.abort()
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
    }

    /// The views of a keyframes or video request: its body a JSON array of 2 to `most` location
    /// files, each checked as `fathom render --location` checks it (a refusal names the first
    /// bad one as "`noun` K").
    static func views(in body: Data, most: Int, noun: String) -> Result<[LocationFile], ExploreServer.Refusal> {
        guard let files = try? JSONDecoder().decode([LocationFile].self, from: body), (2...most).contains(files.count)
        else { return .failure(ExploreServer.Refusal(400, "a JSON array of 2 to \(most) location files")) }
        for (k, file) in files.enumerated() {
            do {
                _ = try file.location()
            } catch {
                return .failure(ExploreServer.Refusal(400, "\(noun) \(k + 1): \(error)"))
            }
        }
        return .success(files)
    }

    /// POST /api/keyframes with a JSON array of location files (the journal's views, 2 to
    /// `ExploreStore.maximumJournal`): writes them as `keyframe-00001.json`... into a new folder
    /// of `folder` (made whole under a temporary name, then renamed), and answers its path and
    /// the `fathom sequence` command that renders the zoom between them.
    func keyframes(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        let files: [LocationFile]
        switch Self.views(in: request.body, most: ExploreStore.maximumJournal, noun: "keyframe") {
        case .success(let checked): files = checked
        case .failure(let refusal): return refusal.reply
        }
        let texts = files.map { $0.prettyJSONString() }
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
            if let frames = job.frames { item += ",\"frames\":\(frames)" }
            if let video = job.video { item += ",\"video\":\(ExploreServer.json(video))" }
            return item + "}"
        }
        lock.unlock()
        return HTTPServer.Reply(
            status: 200, contentType: "application/json", body: Data(("[" + items.joined(separator: ",") + "]").utf8))
    }

    /// GET /api/jobs/file?id=N&kind=png|npy|mp4: a finished job's file, as a download.
    func file(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        guard let id = request.argument("id").flatMap({ Int($0) }), let job = job(id) else {
            return .text(404, "no such render")
        }
        let kinds = [
            "png": (job.png, "image/png"), "npy": (job.npyPath, "application/octet-stream"),
            "mp4": (job.video, "video/mp4"),
        ]
        let kind = request.argument("kind") ?? "png"
        guard let (found, type) = kinds[kind], let path = found, let data = FileManager.default.contents(atPath: path)
        else {
            return .text(404, "that render has no such file (yet)")
        }
        return HTTPServer.Reply(
            status: 200, contentType: type, body: data,
            headers: [("Content-Disposition", "attachment; filename=\"\(job.name).\(kind)\"")])
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

    /// Waits until the running job has unwound (its files removed when cancelled), at most
    /// `seconds`: the server's last step before it exits.
    func waitForRunning(seconds: Double) {
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        _ = done.wait(timeout: .now() + seconds)
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

/// A video job's failure, in one line.
struct ExploreJobError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
