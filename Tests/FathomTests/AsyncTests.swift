import Dispatch
import Fathom
import Foundation
import FractalNumerics
import Synchronization
import Testing

/// The async entry points and progress: monotonic from 0 to 1 over a whole run, cancelled by the
/// calling Task with `CancellationError` (Documentation/Library.md, "Async and progress").
@Suite("Async renders and progress")
struct AsyncTests {
    /// Every estimate a control reported, in order.
    final class Recorder: Sendable {
        let values = Mutex<[Double]>([])
        var control: RenderControl { RenderControl { fraction in self.values.withLock { $0.append(fraction) } } }
        var all: [Double] { values.withLock { $0 } }
    }

    static func monotonicToOne(_ values: [Double]) -> Bool {
        guard let last = values.last, last == 1, values.allSatisfy({ $0 >= 0 && $0 <= 1 }) else { return false }
        return zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }
    }

    @Test(
        "progress never goes back and ends at 1: a direct view, a deep one with several passes",
        arguments: ["flake", "e50"])
    func progressMonotonic(preset: String) throws {
        let location = try #require(Presets.named(preset)).location
        let recorder = Recorder()
        let control = recorder.control
        _ = try Renderer.render(location: location, settings: RenderSettings(width: 200, height: 112), control: control)
        let values = recorder.all
        #expect(values.count >= 2)
        #expect(Self.monotonicToOne(values), "\(preset): \(values.prefix(40))")
        #expect(control.fractionDone == 1)
    }

    @Test("a pass that starts again moves the estimate on, never back")
    func passesChain() {
        let recorder = Recorder()
        let control = recorder.control
        for f in [0.1, 0.5, 1.0, 0.0, 0.5, 1.0, 0.2] { control.report(f) }
        control.finish()
        let values = recorder.all
        #expect(Self.monotonicToOne(values))
        // The second pass started where the first ended and went most of the way to 1.
        #expect(values[2] == 0.95 && values[4] > 0.95 && values[4] < 1)
    }

    @Test("a sequence reports its whole run, from 0 to 1, through each frame's part")
    func sequenceProgress() throws {
        let folder = NSTemporaryDirectory() + "fathom-async-\(getpid())-seq"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let deep = try #require(Presets.named("seahorse"))
        let sequence = try FrameSequence.zoomOut(from: LocationFile(location: deep.location), count: 3, factor: 4)
        let recorder = Recorder()
        let control = recorder.control
        _ = try sequence.render(0...2, into: folder, settings: RenderSettings(width: 32, height: 18), control: control)
        let values = recorder.all
        #expect(Self.monotonicToOne(values), "\(values)")
        // Each frame moved it: the first frame's end is about a third of the way.
        #expect(values.contains { $0 > 0.3 && $0 < 0.4 })
    }

    @Test("the callback receives its control and can cancel the render it reports on")
    func callbackCancels() throws {
        let location = try #require(Presets.named("e50")).location
        let control = RenderControl { control, fraction in if fraction > 0.2 { control.cancel() } }
        #expect(throws: RenderError.cancelled) {
            _ = try Renderer.render(
                location: location, settings: RenderSettings(width: 320, height: 180), control: control)
        }
    }

    @Test("an async render gives the blocking render's field")
    func asyncEqualsBlocking() async throws {
        let location = try #require(Presets.named("seahorse")).location
        let settings = RenderSettings(width: 64, height: 36)
        // The blocking form, from a synchronous closure (in async code the async form is chosen).
        let blocking = try { () throws -> RenderResult in try Renderer.render(location: location, settings: settings)
        }()
        let awaited = try await Renderer.render(location: location, settings: settings)
        #expect(awaited.field == blocking.field)
    }

    @Test("an async render cancelled by its Task throws CancellationError after its tile in flight")
    func taskCancellation() async throws {
        let location = try #require(Presets.named("e1000")).location
        // The render's one worker stops at its 20th tile until the Task has been cancelled, so
        // that the render cannot end first however the test's own task is scheduled.
        let tiles = Mutex((done: 0, afterCancel: 0, cancelled: false))
        let reached = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)
        let control = RenderControl { _ in
            let count = tiles.withLock {
                $0.done += 1
                if $0.cancelled { $0.afterCancel += 1 }
                return $0.done
            }
            if count == 20 {
                reached.signal()
                gate.wait()
            }
        }
        let task = Task {
            try await Renderer.render(
                location: location, settings: RenderSettings(width: 960, height: 540, threads: 1, tilePixels: 256),
                control: control)
        }
        // Wait for the 20th tile off the cooperative pool, which other tests may hold.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                reached.wait()
                done.resume()
            }.start()
        }
        tiles.withLock { $0.cancelled = true }
        task.cancel()
        gate.signal()
        let outcome = await task.result
        switch outcome {
        case .success: Issue.record("the render finished despite the cancel")
        case .failure(let error): #expect(error is CancellationError, "threw \(error)")
        }
        // After the cancel the worker takes no further tile: a tile of 256 pixels of e1000 is a
        // few ms of one core, so the render stops within 0.1 s of its own work.
        let (done, after) = tiles.withLock { ($0.done, $0.afterCancel) }
        #expect(done == 20 && after == 0, "\(done) tiles, \(after) after the cancel")
    }

    @Test("a Task cancelled before the render starts: CancellationError, no work")
    func cancelledBeforeStart() async throws {
        let location = try #require(Presets.named("e1000")).location
        let task = Task {
            try await Task.sleep(for: .milliseconds(50))
            return try await Renderer.render(location: location, settings: RenderSettings(width: 960, height: 540))
        }
        task.cancel()
        let outcome = await task.result
        if case .success = outcome { Issue.record("the render ran") }
    }

    @Test(
        "async image render and verify: the same results, and CancellationError when cancelled; an image encoded in memory is the file's bytes"
    )
    func asyncImageAndVerify() async throws {
        let folder = NSTemporaryDirectory() + "fathom-async-\(getpid())-img"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = LocationFile(location: try #require(Presets.named("seahorse")).location)
        let result = try await ImageRender.render(
            file, settings: RenderSettings(width: 48, height: 27), to: folder + "/a.png")
        #expect(result.field.width == 48 && FileManager.default.fileExists(atPath: folder + "/a.png"))
        let oracle = try OracleFile.read(path: repositoryFile("Tests/FathomTests/Fixtures/pub_b_e14.json").path)
        let report = try await Verifier.verify(oracle, sampledOnly: true)
        #expect(report.outcome == .passed)
        let cancelled = Task {
            try await ImageRender.render(file, settings: RenderSettings(width: 48, height: 27), to: folder + "/b.png")
        }
        cancelled.cancel()
        if case .success = await cancelled.result { Issue.record("the cancelled render wrote its image") }
        #expect(!FileManager.default.fileExists(atPath: folder + "/b.png"))
        // In memory: the bytes the file holds, blocking and async, with the colours it stores.
        let supersampled = LocationFile(location: try #require(Presets.named("seahorse")).location)
        var twice = supersampled
        twice.supersample = 2
        // The blocking forms from a closure of their own (in async code the async overloads win).
        func blockingForms(_ view: LocationFile, _ path: String) throws -> ImageRender.Encoded {
            try ImageRender.render(view, settings: RenderSettings(width: 48, height: 27), to: path, bitDepth: .sixteen)
            return try ImageRender.encoded(view, settings: RenderSettings(width: 48, height: 27), bitDepth: .sixteen)
        }
        for (k, view) in [supersampled, twice].enumerated() {
            let path = folder + "/c\(k).png"
            let blocking = try blockingForms(view, path)
            let written = try #require(FileManager.default.contents(atPath: path))
            let async = try await ImageRender.encoded(
                view, settings: RenderSettings(width: 48, height: 27), bitDepth: .sixteen)
            #expect(blocking.png == written && async.png == written)
            let stored = try LocationFile.decode(written, path: path)
            #expect(stored.color == blocking.color && blocking.result.field.width == 48 * (k + 1))
        }
    }
}

@Suite("Minibrot searches in async code")
struct AsyncFinderTests {
    @Test("an async search finds what the blocking one finds; a descent cancelled by its Task stops")
    func findAndCancel() async throws {
        let c = try BigComplex(parsingRe: "-0.746223962861", im: "-0.0959468433527", precision: Precision(bits: 128))
        let blocking = try #require({ MinibrotFinder.find(near: c, radius: FloatExp(3.725e-3)) }())
        let awaited = try #require(try await MinibrotFinder.find(near: c, radius: FloatExp(3.725e-3)))
        #expect(awaited.period == blocking.period && awaited.nucleus.re == blocking.nucleus.re)
        // A descent to 1e-3000 takes minutes: cancelled after 0.3 s, it ends with CancellationError.
        let task = Task {
            try await MinibrotFinder.descend(
                from: c, radius: FloatExp(3.725e-3), to: FloatExp(significand: 1, exponent: -10_000))
        }
        try await Task.sleep(for: .milliseconds(300))
        let cancelledAt = Date()
        task.cancel()
        let outcome = await task.result
        switch outcome {
        case .success: Issue.record("the descent finished")
        case .failure(let error): #expect(error is CancellationError, "threw \(error)")
        }
        #expect(Date().timeIntervalSince(cancelledAt) < 5)
    }
}

@Suite("Renders sharing a reference cache")
struct SharedCacheTests {
    /// e1086 at 32 x 18 with a cache of its own: its orbit takes about a second.
    static func view() throws -> (Location, ReferenceCache, RenderSettings) {
        let cache = ReferenceCache()
        var settings = RenderSettings(width: 32, height: 18)
        settings.perturbation.cache = cache
        return (try #require(Presets.named("e1086")).location, cache, settings)
    }

    @Test("two renders of one view at once, one cache: the orbit is computed once, the same field twice")
    func orbitComputedOnce() async throws {
        // The second render starts while the first computes the orbit.
        let (location, cache, settings) = try Self.view()
        async let a = Renderer.render(location: location, settings: settings)
        async let b = Renderer.render(location: location, settings: settings)
        let (first, second) = try await (a, b)
        #expect(first.field == second.field)
        #expect(cache.computedOrbits == 1, "computed \(cache.computedOrbits), waited \(cache.orbitWaits)")
        #expect(cache.orbitHits >= 1)
    }

    @Test("a nucleus placement's Newton's method runs once for renders of one view, the same field")
    func newtonOnce() throws {
        // The Seahorse view on the perturbation path takes its period-33 minibrot's nucleus
        // (Perturbation.md; GPUTests.devicePlacementIsTheCPUs).
        let location = Location(
            centerRe: "-0.746223962861", centerIm: "-0.0959468433527", radius: "3.725e-3", maxIterations: 100_000)
        let alone = try Renderer.render(
            location: location, settings: RenderSettings(width: 32, height: 18, path: .perturbation))
        #expect(alone.report.perturbation?.referenceIsNucleus == true)
        #expect(alone.report.perturbation?.referencePeriod == 33)
        let cache = ReferenceCache()
        var settings = RenderSettings(width: 32, height: 18, path: .perturbation)
        settings.perturbation.cache = cache
        let first = try Renderer.render(location: location, settings: settings)
        let second = try Renderer.render(location: location, settings: settings)
        #expect(first.field == alone.field && second.field == alone.field)
        #expect(cache.minibrotSearches == 1)
    }

    @Test("a render waiting for another's orbit stops when cancelled")
    func waiterCancelled() async throws {
        let (location, cache, settings) = try Self.view()
        let computing = Task { try await Renderer.render(location: location, settings: settings) }
        try await Task.sleep(for: .milliseconds(100))
        let waiting = Task { try await Renderer.render(location: location, settings: settings) }
        try await Task.sleep(for: .milliseconds(100))
        waiting.cancel()
        // Cancelled while it waits (the usual case), it throws CancellationError; where the
        // test's tasks ran late it may have had the orbit and finished first, which is fine.
        if case .failure(let error) = await waiting.result {
            #expect(error is CancellationError, "threw \(error)")
        }
        _ = try await computing.value
        #expect(cache.computedOrbits == 1)
    }
}
