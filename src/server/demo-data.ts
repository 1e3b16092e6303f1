/** The small built-in set of pets and orders that `petstore serve --demo` loads into an empty store. */
import type { Order } from "../api/types.js";
import type { SeedPet } from "./store/store.js";

const dogs = { id: 1n, name: "Dogs" };
const cats = { id: 2n, name: "Cats" };
const birds = { id: 3n, name: "Birds" };
const fish = { id: 4n, name: "Fish" };

export const DEMO_PETS: readonly SeedPet[] = [
  {
    id: 1n,
    name: "Rex",
    status: "available",
    quantity: 3,
    category: dogs,
    photoUrls: [],
    tags: [{ id: 1n, name: "puppy" }],
  },
  {
    id: 2n,
    name: "Bella",
    status: "available",
    quantity: 5,
    category: dogs,
    photoUrls: [],
    tags: [],
  },
  {
    id: 3n,
    name: "Whiskers",
    status: "pending",
    quantity: 1,
    category: cats,
    photoUrls: [],
    tags: [],
  },
  { id: 4n, name: "Tom", status: "sold", quantity: 0, category: cats, photoUrls: [], tags: [] },
  {
    id: 5n,
    name: "Tweety",
    status: "available",
    quantity: 12,
    category: birds,
    photoUrls: [],
    tags: [],
  },
  {
    id: 6n,
    name: "Nemo",
    status: "available",
    quantity: 40,
    category: fish,
    photoUrls: [],
    tags: [{ id: 2n, name: "freshwater" }],
  },
  { id: 7n, name: "Dory", status: "pending", quantity: 7, category: fish, photoUrls: [], tags: [] },
  {
    id: 42n,
    name: "Goldie",
    status: "available",
    quantity: 9,
    category: fish,
    photoUrls: [],
    tags: [],
  },
];

export const DEMO_ORDERS: readonly Order[] = [
  {
    id: 1n,
    petId: 3n,
    quantity: 1,
    shipDate: "2026-11-20T10:00:00.000Z",
    status: "approved",
    complete: false,
  },
  {
    id: 2n,
    petId: 4n,
    quantity: 1,
    shipDate: "2026-11-18T15:30:00.000Z",
    status: "delivered",
    complete: true,
  },
  {
    id: 3n,
    petId: 7n,
    quantity: 2,
    shipDate: "2026-11-22T09:00:00.000Z",
    status: "placed",
    complete: false,
  },
];
