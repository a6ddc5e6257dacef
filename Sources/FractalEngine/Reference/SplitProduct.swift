import ArbitraryPrecision
internal import CMPFR

/// One correctly rounded MPFR product, a b, cut into independent pieces for several threads.
///
/// The exact product of the two n-limb significands is split by Karatsuba's identity, level by
/// level: with a = a1 B^h + a0 and b = b1 B^h + b0 (B = 2^64, h = n / 2),
/// a b = a1 b1 B^2h + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) B^h + a0 b0, so one product of n limbs
/// becomes three of about n / 2, and `levels` levels give 3^levels leaves (`leafCount`). Each
/// leaf is one `mpn_mul_n` that any thread may run (`multiplyLeaf`); `prepare` (the operand sums,
/// top down) and `finish` (the partial products added, bottom up, then one rounding) run on one
/// thread, in O(n) each level.
///
/// Every leaf is exact, so the sum is the exact product, and `finish` rounds it once to the
/// target's precision, to nearest: the value `mpfr_mul(target, a, b, MPFR_RNDN)` returns, bit
/// for bit, however the leaves were shared out (tested against `mpfr_mul`).
final class SplitProduct {
    /// A node of the split: the product of two n-limb operands into 2n limbs; an inner node's
    /// three children (low, high, sums) are `first`, `first + 1` and `first + 2`.
    private struct Node {
        var n: Int
        var a: UnsafeMutablePointer<mp_limb_t>? = nil
        var b: UnsafeMutablePointer<mp_limb_t>? = nil
        var result: UnsafeMutablePointer<mp_limb_t>
        var first = -1
        /// a0 + a1 and b0 + b1 (k + 1 limbs, k = n - n / 2), and the middle term (2k + 2 limbs).
        var sumA: UnsafeMutablePointer<mp_limb_t>? = nil
        var sumB: UnsafeMutablePointer<mp_limb_t>? = nil
        var middle: UnsafeMutablePointer<mp_limb_t>? = nil
    }

    /// The operands' limb count.
    let limbs: Int
    let levels: Int
    /// The nodes, breadth first (parents before children); raw storage, so the threads that
    /// run leaves touch no reference count.
    private let nodes: UnsafeMutablePointer<Node>
    private let nodeCount: Int
    /// The leaves' node indices, largest first (the sums' leaves are a limb longer).
    private let leaves: UnsafeMutablePointer<Int>
    let leafCount: Int
    private let arena: UnsafeMutablePointer<mp_limb_t>
    private let arenaCount: Int
    /// The operands' signs and exponents, from `prepare`; whether one was zero (then `finish`
    /// calls `mpfr_mul` itself).
    private var negative = false
    private var exponent: mpfr_exp_t = 0
    private var special = false
    private var a: UnsafeMutablePointer<__mpfr_struct>?
    private var b: UnsafeMutablePointer<__mpfr_struct>?

    /// The smallest operand a leaf may have: the identity needs n >= 4 at every inner node.
    static let minimumLeafLimbs = 8

    /// A split of products of two numbers of `precision` into 3^levels leaves (fewer where the
    /// operands are too short to split that often).
    init(precision: Precision, levels: Int) {
        limbs = (precision.bits + 63) / 64
        var depth = 0
        while depth < levels && (limbs >> (depth + 1)) >= Self.minimumLeafLimbs { depth += 1 }
        self.levels = depth
        // Sizes first (breadth first, so parents precede children), then one arena for all.
        var sizes: [(n: Int, first: Int)] = [(limbs, -1)]
        var level = [0]
        for _ in 0..<depth {
            var next: [Int] = []
            for i in level {
                let n = sizes[i].n, h = n / 2, k = n - h
                sizes[i].first = sizes.count
                for m in [h, k, k + 1] {
                    next.append(sizes.count)
                    sizes.append((m, -1))
                }
            }
            level = next
        }
        var total = 0
        for s in sizes {
            total += 2 * s.n
            if s.first >= 0 {
                let k = s.n - s.n / 2
                total += 2 * (k + 1) + 2 * k + 2
            }
        }
        arenaCount = total
        arena = .allocate(capacity: total)
        arena.initialize(repeating: 0, count: total)
        var cursor = arena
        func take(_ count: Int) -> UnsafeMutablePointer<mp_limb_t> {
            defer { cursor += count }
            return cursor
        }
        var built: [Node] = [], leafIndices: [Int] = []
        for s in sizes {
            var node = Node(n: s.n, result: take(2 * s.n), first: s.first)
            if s.first >= 0 {
                let k = s.n - s.n / 2
                node.sumA = take(k + 1)
                node.sumB = take(k + 1)
                node.middle = take(2 * k + 2)
            } else {
                leafIndices.append(built.count)
            }
            built.append(node)
        }
        leafIndices.sort { sizes[$0].n > sizes[$1].n }
        nodeCount = built.count
        nodes = .allocate(capacity: built.count)
        nodes.initialize(from: built, count: built.count)
        leafCount = leafIndices.count
        leaves = .allocate(capacity: leafIndices.count)
        leaves.initialize(from: leafIndices, count: leafIndices.count)
    }

    deinit {
        arena.deallocate()
        nodes.deinitialize(count: nodeCount)
        nodes.deallocate()
        leaves.deallocate()
    }

    /// Takes the operands of the next product (both of `precision`; they must not change until
    /// `finish`) and forms the sums every level needs.
    func prepare(_ a: UnsafeMutablePointer<__mpfr_struct>, _ b: UnsafeMutablePointer<__mpfr_struct>) {
        self.a = a
        self.b = b
        special = fathom_mpfr_regular_p(a) == 0 || fathom_mpfr_regular_p(b) == 0
        if special { return }
        negative = (fathom_mpfr_sgn(a) < 0) != (fathom_mpfr_sgn(b) < 0)
        exponent = fathom_mpfr_exponent(a) + fathom_mpfr_exponent(b)
        nodes[0].a = fathom_mpfr_significand(a)
        nodes[0].b = fathom_mpfr_significand(b)
        for i in 0..<nodeCount where nodes[i].first >= 0 {
            let node = nodes[i], n = node.n, h = n / 2, k = n - h, c = node.first
            nodes[c].a = node.a
            nodes[c].b = node.b
            nodes[c + 1].a = node.a! + h
            nodes[c + 1].b = node.b! + h
            node.sumA![k] = fathom_mpn_add(node.sumA!, node.a! + h, k, node.a!, h)
            node.sumB![k] = fathom_mpn_add(node.sumB!, node.b! + h, k, node.b!, h)
            nodes[c + 2].a = node.sumA
            nodes[c + 2].b = node.sumB
        }
    }

    /// Leaf `i`'s product (0 ..< leafCount); leaves touch disjoint memory, so any thread may
    /// run any of them at once. Nothing to do when an operand was zero.
    @inline(__always)
    func multiplyLeaf(_ i: Int) {
        if special { return }
        let node = nodes[leaves[i]]
        fathom_mpn_mul_n(node.result, node.a!, node.b!, node.n)
    }

    /// After every leaf: the partial products added up and rounded once into `target`.
    func finish(into target: UnsafeMutablePointer<__mpfr_struct>) {
        if special {
            mpfr_mul(target, a!, b!, MPFR_RNDN)
            return
        }
        for i in stride(from: nodeCount - 1, through: 0, by: -1) where nodes[i].first >= 0 {
            let node = nodes[i], n = node.n, h = n / 2, k = n - h
            let low = nodes[node.first].result, high = nodes[node.first + 1].result
            let sums = nodes[node.first + 2].result
            let middle = node.middle!
            // (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 >= 0: neither subtraction borrows.
            _ = fathom_mpn_sub(middle, sums, 2 * k + 2, low, 2 * h)
            _ = fathom_mpn_sub(middle, middle, 2 * k + 2, high, 2 * k)
            fathom_mpn_copy(node.result, low, 2 * h)
            fathom_mpn_copy(node.result + 2 * h, high, 2 * k)
            // The product fits its 2n limbs, so adding the middle term carries out nothing.
            _ = fathom_mpn_add(node.result + h, node.result + h, 2 * n - h, middle, 2 * k + 2)
        }
        let r = nodes[0].result, count = 2 * limbs
        var e = exponent
        // The significands are in [1/2, 1), so their product is in [1/4, 1): normalise.
        if r[count - 1] >> 63 == 0 {
            _ = fathom_mpn_lshift(r, r, count, 1)
            e -= 1
        }
        var exact = __mpfr_struct()
        fathom_mpfr_set_regular(&exact, negative ? 1 : 0, e, mpfr_prec_t(64 * count), r)
        mpfr_set(target, &exact, MPFR_RNDN)
    }
}
