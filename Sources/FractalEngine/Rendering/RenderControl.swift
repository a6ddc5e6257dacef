import Foundation
import FractalNumerics

/// Progress reporting and cancellation for a render in flight. Thread-safe.
public final class RenderControl: @unchecked Sendable {
    /// Guards `cancelled` only: never held while `progress` runs, so the closure (or another
    /// thread while it runs) may call `cancel()` and `isCancelled`.
    private let lock = NSLock()
    private var cancelled = false
    /// One progress call at a time.
    private let progressLock = NSLock()
    private let progress: (@Sendable (Double) -> Void)?

    /// `progress` is called with the fraction of pixels done (0...1) after each tile, from
    /// the rendering threads, one call at a time; it may cancel the render.
    public init(progress: (@Sendable (Double) -> Void)? = nil) {
        self.progress = progress
    }

    /// Asks the render to stop; it throws `RenderError.cancelled` after the tiles in flight.
    public func cancel() {
        lock.lock()
        cancelled = true
        lock.unlock()
    }

    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// Progress of a reference orbit: reported as the first 10% of the render.
    func reportReference(_ fraction: Double) { report(0.1 * min(1, fraction)) }

    func report(_ fraction: Double) {
        guard let progress else { return }
        progressLock.lock()
        defer { progressLock.unlock() }
        progress(fraction)
    }
}

/// Why a render did not produce a field.
public enum RenderError: Error, Equatable, CustomStringConvertible {
    case cancelled
    /// The view needs more bits below the pixel spacing than direct iteration carries, and
    /// the family has no perturbation formula (Newton).
    case needsPerturbation(requiredBits: Int, availableBits: Int)
    /// The perturbation path was asked for a family that has no perturbation formula.
    case noPerturbationFormula(family: String)
    /// A reference orbit file was asked for, but the view renders on a direct path.
    case noReferenceOrbit(path: String)
    /// The reference orbit would outgrow the memory (`steps` steps of
    /// `RenderPlan.bytesPerReferenceStep`, more than `memory` bytes).
    case referenceTooLarge(steps: Int, memory: Int)

    public var description: String {
        switch self {
        case .cancelled:
            "render cancelled"
        case .noPerturbationFormula(let family):
            "path: the \(family) family has no perturbation formula: render it with path double or double-double"
        case .noReferenceOrbit(let path):
            "save-reference: this view renders on the \(path) path, which takes no reference orbit"
        case .referenceTooLarge(let steps, let memory):
            "the reference orbit would pass \(steps) steps, more than this machine's \(memory >> 20) MiB of memory holds with its BLA table: lower the iteration limit"
        case .needsPerturbation(let required, let available):
            "this view needs \(required) bits (pixel spacing plus guard bits) but direct double-double iteration carries \(available), and Newton fractals have no perturbation formula"
        }
    }
}

/// The order in which a render's workers take its tiles. Only `ascending` is used outside
/// tests: the others exist to show that a field does not depend on the order (a render is a
/// pure function of location and settings, whatever the schedule).
public enum TileOrder: Sendable, Equatable {
    case ascending
    case descending
    /// A permutation drawn with SplitMix64 from `seed`.
    case shuffled(seed: UInt64)

    /// The tile the `k`-th request takes, for `count` tiles: nil for `ascending`.
    func permutation(count: Int) -> [Int]? {
        switch self {
        case .ascending:
            return nil
        case .descending:
            return Array((0..<count).reversed())
        case .shuffled(let seed):
            var tiles = Array(0..<count)
            var generator = SplitMix64(seed: seed)
            func next() -> UInt64 { generator.next() }
            // Fisher-Yates.
            for i in stride(from: count - 1, to: 0, by: -1) {
                tiles.swapAt(i, Int(next() % UInt64(i + 1)))
            }
            return tiles
        }
    }
}

/// Runs tiles on a fixed number of threads, each taking the next tile when it is free.
enum TileScheduler {
    static func run(tiles: Int, threads: Int, control: RenderControl?, tileDone: @escaping @Sendable (Int) -> Double,
                    progressBase: Double = 0, order: TileOrder = .ascending, body: @escaping @Sendable (Int) -> Void) {
        let queue = TileQueue(count: tiles, base: progressBase, order: order.permutation(count: tiles))
        DispatchQueue.concurrentPerform(iterations: max(1, min(threads, tiles))) { _ in
            while control?.isCancelled != true, let tile = queue.next() {
                body(tile)
                let fraction = queue.finish(weight: tileDone(tile))
                control?.report(fraction)
            }
        }
    }

    /// The number of threads "all cores" means here.
    static var availableThreads: Int { ProcessInfo.processInfo.activeProcessorCount }
}

private final class TileQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var nextTile = 0
    private var done: Double
    private let count: Int
    private let order: [Int]?

    init(count: Int, base: Double, order: [Int]?) {
        self.count = count
        self.order = order
        done = base
    }

    func next() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard nextTile < count else { return nil }
        nextTile += 1
        return order?[nextTile - 1] ?? nextTile - 1
    }

    func finish(weight: Double) -> Double {
        lock.lock()
        defer { lock.unlock() }
        done += weight
        return min(1, done)
    }
}
