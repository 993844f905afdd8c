/** Where a refusal came from, for the trail: a TCP peer's host (not its port), or the principal. */
export function auditSource(peerOrUname: string): string {
  const tcp = /^tcp!(.*)!\d+$/.exec(peerOrUname);
  return tcp ? `tcp!${tcp[1]}` : peerOrUname;
}
