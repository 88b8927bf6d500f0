// Figures: medians per round, and bua/peer ratios with their spread.

/** median of a non-empty list of numbers. */
export function median(xs) {
  if (!xs.length) throw new Error('median of no samples');
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * compare turns rounds of samples into one comparison: each round's
 * medians and their ratio bua/peer, then the median ratio over rounds and
 * its spread (min, max). rounds: [{ bua: [...], peer: [...] }].
 */
export function compare(rounds) {
  const per = rounds.map((r) => {
    const buaMedian = median(r.bua);
    const peerMedian = median(r.peer);
    return { bua: r.bua, peer: r.peer, buaMedian, peerMedian, ratio: buaMedian / peerMedian };
  });
  const ratios = per.map((r) => r.ratio);
  return {
    rounds: per,
    ratio: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
    buaMedian: median(per.map((r) => r.buaMedian)),
    peerMedian: median(per.map((r) => r.peerMedian)),
  };
}

/** meets says whether a ratio meets a target (≤); null when there is none. */
export function meets(ratio, target) {
  return target == null ? null : ratio <= target;
}
