export const name = 'ping';
export const needsPilot = false;

export function run() {
  return { pong: true };
}
