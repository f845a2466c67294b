export default function (arbor: { on: unknown }) {
  return arbor.on(
