export function Card({ title }: { title: string }) {
  return (
    <div className="card">
      <h2>{title}</h3>
    </div>
  );
}
