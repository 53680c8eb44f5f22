/** True when `url` passes the origin filters (no filters: every URL). */
export function originAllowed(url: string | null, origins: readonly string[] | undefined): boolean {
  if (!origins || origins.length === 0 || url === null) return true;
  try {
    return origins.includes(new URL(url).origin);
  } catch {
    return false;
  }
}
