# Research prototype for Documentation/Design.md section 13 (plain Double, direct z^2 + c, no perturbation).
# Trigger: |dz_n/dz_1| < EPS. Proof: a disc D = B(w, r) with f^P(D) strictly inside D, by
# disc arithmetic with a rounding allowance. With Fatou's theorem that proves c is in M.
U = 2.0 ** -52
EPS = 1e-3

def mag(w):                      # |w| rounded up (generously)
    return abs(w) * (1 + 4 * U)

def disc_maps_into_itself(w0, c, P, r):
    w, rho = w0, r
    for _ in range(P):
        aw = mag(w)
        rho = (2 * aw * rho + rho * rho + 4 * U * (aw * aw + mag(c))) * (1 + 4 * U)
        w = w * w + c
        if rho > 4:
            return False
    return mag(w - w0) + rho < r

def classify(c, max_iter=10 ** 7):
    z, dzdz1, zmin = 0j, 1.0, float("inf")
    partials, next_try, attempts, extra = [], 0, 0, 0
    for n in range(1, max_iter + 1):
        if n > 1:
            dzdz1 *= abs(2 * z)
        z = z * z + c
        if abs(z) > 2:
            return ("escaped", n, attempts, extra)
        if abs(z) < zmin:
            zmin = abs(z)
            partials.append(n)
        if dzdz1 < EPS and n >= next_try:
            attempts += 1
            gaps = [partials[i] - partials[i - 1] for i in range(max(1, len(partials) - 3), len(partials))]
            for P in sorted(set(gaps + partials[:3]))[:4]:
                w, lam = z, 1                 # one period: displacement and multiplier estimate
                for _ in range(P):
                    lam *= 2 * w
                    w = w * w + c
                extra += P
                if abs(lam) < 1:
                    r = max(2 * abs(w - z) / (1 - abs(lam)), 2.0 ** -40)
                    extra += P
                    if disc_maps_into_itself(w, c, P, r):
                        return ("PROVEN interior", n, attempts, extra, P, abs(lam))
            next_try = 2 * n                  # back off: the next attempt after twice the work
    return ("max_iter", max_iter, attempts, extra)

if __name__ == "__main__":
    for c in [0.2501, 0.250001, -0.75 + 0.001j, -0.75 + 0.0001j, 0.2499, 0.249999, -0.12 + 0.75j,
              -0.1 + 0.1j, -1 + 0.2j, -0.7499 + 0.0001j, -1.7548776662466927 + 1e-9j, 0.3 + 0.5j]:
        print(c, classify(c))
