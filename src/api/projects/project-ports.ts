/** A project's own ports (warehouse, models, embedder) for work a route does on its behalf. */
import type { DiscoveryDeps } from '../../discovery/context.js';
import type { Project } from '../../domain/index.js';

/** The composed runtime also opens a project's own warehouse and models; test runtimes serve every project themselves. */
interface ProjectPortsSource {
  clients?: { withProject<T>(project: Project, work: (deps: DiscoveryDeps) => Promise<T>): Promise<T> };
}

export function withProjectPorts<T>(runtime: DiscoveryDeps, project: Project, work: (deps: DiscoveryDeps) => Promise<T>): Promise<T> {
  const clients = (runtime as DiscoveryDeps & ProjectPortsSource).clients;
  return clients ? clients.withProject(project, work) : work(runtime);
}
