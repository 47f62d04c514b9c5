// SplitMix64, as the Swift tests use: the same seed gives the same run. `random(seed)` gives a
// function of `bound` that answers a number in [0, bound).
export function random(seed) {
  let state = BigInt(seed);
  const mask = (1n << 64n) - 1n;
  return (bound) => {
    state = (state + 0x9E3779B97F4A7C15n) & mask;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & mask;
    z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & mask;
    return Number((z ^ (z >> 31n)) % BigInt(bound));
  };
}
