import Foundation
import FractalNumerics
import Synchronization

// The package's parallel helpers: tile scheduling for the passes, chunked loops for tables,
// finishing, colouring and the GPU emulation, and the pointer concurrent chunks share
// (`package`: FractalImaging and FathomGPU use them too).

/// Chunked parallel loops.
package enum Parallel {
    /// Runs `body` over 0..<count in `threads * 4` chunks on up to `threads` threads, or in one
    /// chunk on this thread below `minimumCount` (or with one thread).
    package static func forEachChunk(
        _ count: Int, threads: Int, minimumCount: Int = 1 << 14, _ body: @Sendable (Range<Int>) -> Void
    ) {
        guard count >= minimumCount && threads > 1 else {
            body(0..<count)
            return
        }
        forEachChunk(count, chunks: threads * 4, threads: threads, body)
    }

    /// Runs `body` over 0..<count split into `chunks` ranges (chunk c: count c / chunks ..<
    /// count (c + 1) / chunks), as many at once as there are cores.
    package static func forEachChunk(_ count: Int, chunks: Int, _ body: @Sendable (Range<Int>) -> Void) {
        DispatchQueue.concurrentPerform(iterations: chunks) { c in
            body(count * c / chunks..<count * (c + 1) / chunks)
        }
    }

    /// `forEachChunk(count, chunks:)` on at most `threads` threads: with `workers` = min(threads,
    /// chunks), worker w takes chunks w, w + workers, ... (all the cores at `cores` or more).
    package static func forEachChunk(
        _ count: Int, chunks: Int, threads: Int, _ body: @Sendable (Range<Int>) -> Void
    ) {
        let workers = Swift.max(1, Swift.min(threads, chunks))
        guard workers < cores else { return forEachChunk(count, chunks: chunks, body) }
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            for c in stride(from: w, to: chunks, by: workers) { body(count * c / chunks..<count * (c + 1) / chunks) }
        }
    }

    /// The sum of `term(i)` over 0..<count, in chunks on all cores (one chunk below 2^16).
    package static func sum(_ count: Int, _ term: @Sendable (Int) -> Int) -> Int {
        let chunks = count < 1 << 16 ? 1 : cores * 4
        let partial = UnsafeMutableBufferPointer<Int>.allocate(capacity: chunks)
        defer { partial.deallocate() }
        let out = SendablePointer(partial.baseAddress!)
        DispatchQueue.concurrentPerform(iterations: chunks) { c in
            var s = 0
            for i in count * c / chunks..<count * (c + 1) / chunks { s &+= term(i) }
            out.pointer[c] = s
        }
        return partial.reduce(0, &+)
    }

    /// The cores this process may use.
    package static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }
}

/// A pointer handed to concurrent chunks that write disjoint entries (or only read).
///
/// Unchecked Sendable: that rule is the caller's to keep, with the memory alive until every
/// chunk has returned (`parallelChunks` returns only then).
@usableFromInline
package struct SendablePointer<T>: @unchecked Sendable {
    @usableFromInline package let pointer: UnsafeMutablePointer<T>
    @usableFromInline package init(_ pointer: UnsafeMutablePointer<T>) { self.pointer = pointer }
}

/// The order in which a render's workers take its tiles. Only `ascending` is used outside
/// tests: the others exist to show that a field does not depend on the order (a render is a
/// pure function of location and settings, whatever the schedule).
package enum TileOrder: Sendable, Equatable {
    /// The tiles in index order, first to last.
    case ascending
    /// The tiles in reverse index order, last to first.
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
    static func run(
        tiles: Int, threads: Int, control: RenderControl?, tileDone: @escaping @Sendable (Int) -> Double,
        progressBase: Double = 0, order: TileOrder = .ascending, body: @escaping @Sendable (Int) -> Void
    ) {
        let queue = TileQueue(count: tiles, base: progressBase, order: order.permutation(count: tiles))
        DispatchQueue.concurrentPerform(iterations: max(1, min(threads, tiles))) { _ in
            while control?.isCancelled != true, let tile = queue.next() {
                body(tile)
                let fraction = queue.finish(weight: tileDone(tile))
                control?.report(fraction)
            }
        }
    }
}

private final class TileQueue: Sendable {
    private let nextTile = Mutex(0)
    private let done: Mutex<Double>
    private let count: Int
    private let order: [Int]?

    init(count: Int, base: Double, order: [Int]?) {
        self.count = count
        self.order = order
        done = Mutex(base)
    }

    func next() -> Int? {
        guard
            let k = nextTile.withLock({ next -> Int? in
                guard next < count else { return nil }
                next += 1
                return next - 1
            })
        else { return nil }
        return order?[k] ?? k
    }

    func finish(weight: Double) -> Double {
        done.withLock { done in
            done += weight
            return min(1, done)
        }
    }
}
