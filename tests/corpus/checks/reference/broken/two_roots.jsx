export function Header() {
  return (
    <h1>Title</h1>
    <p>Subtitle</p>
  );
}
