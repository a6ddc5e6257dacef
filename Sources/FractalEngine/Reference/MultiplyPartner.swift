import CMPFR
import Foundation

/// A second thread for the reference orbit's deep steps: z^2 = ((x + y)(x - y), 2xy) has two
/// independent products, so while the orbit's thread multiplies (x + y)(x - y), the partner
/// multiplies x y (and likewise x^2 and y^2 for the exact gap 4 - |Z|^2 near c = -2). At
/// tens of thousands of bits a product takes far longer than the handoff (the partner spins
/// on an atomic between steps, on a core the reference leaves idle), so a step takes about
/// half as long; the registers and the rounding are the same, so the orbit is bit for bit
/// the one a single thread computes.
final class MultiplyPartner: @unchecked Sendable {
    /// 0 idle, 1 a product is wanted, 2 it is done, 3 stop (acquire loads, release stores).
    private let state: UnsafeMutablePointer<Int>
    /// The product wanted: target = a b. Written before `state` becomes 1 (release) and read
    /// after the partner sees it (acquire).
    private var target: UnsafeMutablePointer<__mpfr_struct>?
    private var a: UnsafeMutablePointer<__mpfr_struct>?
    private var b: UnsafeMutablePointer<__mpfr_struct>?
    private let finished = DispatchSemaphore(value: 0)

    /// Precision (bits) from which the orbit uses a partner: below it the handoff costs about
    /// what the product saves (Documentation/Perturbation.md).
    static let minimumBits = 8000

    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: 0)
        let thread = Thread { [self] in
            while true {
                var s = load()
                while s == 0 || s == 2 {
                    s = load()
                }
                if s == 3 { break }
                mpfr_mul(target!, a!, b!, MPFR_RNDN)
                store(2)
            }
            finished.signal()
        }
        thread.start()
    }

    deinit { state.deallocate() }

    @inline(__always)
    private func load() -> Int { fathom_atomic_load_acquire(state) }
    @inline(__always)
    private func store(_ value: Int) { fathom_atomic_store_release(state, value) }

    /// Starts target = a b (rounded to nearest) on the partner's thread; none of the three
    /// may be touched until `wait` returns.
    @inline(__always)
    func start(
        _ target: UnsafeMutablePointer<__mpfr_struct>, _ a: UnsafeMutablePointer<__mpfr_struct>,
        _ b: UnsafeMutablePointer<__mpfr_struct>
    ) {
        self.target = target
        self.a = a
        self.b = b
        store(1)
    }

    /// Waits for the product started last.
    @inline(__always)
    func wait() {
        while load() != 2 {}
        store(0)
    }

    /// Ends the partner's thread (call once, after the last `wait`).
    func stop() {
        store(3)
        finished.wait()
    }
}
